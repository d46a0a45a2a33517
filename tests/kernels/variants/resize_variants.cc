// resize family (kernels/resize): every variant vs s8_resize__ref.
#include "tests/kernels/variants/variant_harness.h"

namespace {

// Edge cases: channels 1 .. 24 (every vector tail and the scalar / vector switch), nearest
// and bilinear, a 2x upscale whose rows repeat (the row-copy path) with extreme weights.
constexpr int32_t kMaxEdgeChannels = 24;
enum EdgeKind { kNearest, kBilinear, kNumEdgeKinds };
constexpr int32_t kEdgeCases = kMaxEdgeChannels * kNumEdgeKinds;
const char* const kKindNames[kNumEdgeKinds] = {"nearest_2x", "bilinear_2x"};
const char* EdgeKindName(int32_t e) { return kKindNames[e / kMaxEdgeChannels]; }

// One axis: random taps (sometimes runs of equal ones, as an upscale makes), weights at
// the ends of their range now and then.
void FillAxis(tfv::Rng& rng, int32_t in, int32_t out, bool upscale2, int32_t* t) {
  for (int32_t i = 0; i < out; ++i, t += 3) {
    if (upscale2) {
      t[0] = i / 2 < in ? i / 2 : in - 1;
      t[1] = t[0] + 1 < in ? t[0] + 1 : t[0];
      t[2] = (i % 2) ? 1024 : 0;
      if (i == 1 && rng.Chance(50)) t[2] = 512;
      continue;
    }
    if (i > 0 && rng.Chance(30)) {
      t[0] = t[-3], t[1] = t[-2], t[2] = t[-1];
      continue;
    }
    t[0] = rng.Range(0, in - 1);
    t[1] = rng.Range(0, in - 1);
    const int32_t k = rng.Range(0, 9);
    t[2] = k == 0 ? 0 : k == 1 ? 1024 : rng.Range(0, 1024);
  }
}

}  // namespace

TFV_FAMILY_TEST(resize, kEdgeCases, EdgeKindName) {
  s8_resize_params p{};
  bool upscale2 = false;
  if (ctx.Edge()) {
    p.batches = 1;
    p.channels = ctx.EdgeIndex() % kMaxEdgeChannels + 1;
    p.bilinear = ctx.EdgeIndex() / kMaxEdgeChannels == kBilinear;
    p.input_h = 3, p.input_w = 4;
    p.output_h = 6, p.output_w = 8;
    upscale2 = true;
  } else {
    p.batches = ctx.rng.Range(1, 2);
    p.input_h = ctx.rng.Range(1, 6);
    p.input_w = ctx.rng.Range(1, 6);
    p.channels = ctx.rng.Chance(50) ? ctx.rng.Range(1, 20) : ctx.rng.Range(1, 70);
    p.output_h = ctx.rng.Range(1, 12);
    p.output_w = ctx.rng.Range(1, 12);
    p.bilinear = ctx.rng.Range(0, 1);
  }
  const int32_t n_in = p.batches * p.input_h * p.input_w * p.channels;
  const int32_t n_out = p.batches * p.output_h * p.output_w * p.channels;
  int32_t* table = ctx.Alloc<int32_t>(static_cast<int32_t>(s8_resize_table_entries(p)));
  int8_t* in = ctx.Alloc<int8_t>(n_in);
  int8_t* want = ctx.Output(n_out);
  int8_t* got = ctx.Output(n_out);
  if (table == nullptr || in == nullptr || want == nullptr || got == nullptr) return false;
  FillAxis(ctx.rng, p.input_h, p.output_h, upscale2, table);
  FillAxis(ctx.rng, p.input_w, p.output_w, upscale2, table + 3 * p.output_h);
  ctx.rng.Fill(in, n_in);
  if (ctx.rng.Chance(10)) {
    for (int32_t i = 0; i < n_in; ++i) in[i] = ctx.rng.Chance(50) ? -128 : 127;
  }
  ctx.Params("batches %d in %dx%d c %d out %dx%d bilinear %d", (int)p.batches, (int)p.input_h,
             (int)p.input_w, (int)p.channels, (int)p.output_h, (int)p.output_w,
             (int)p.bilinear);
  s8_resize__ref(&p, in, table, want);
  ctx.Variant (&s8_resize__ref)(&p, in, table, got);
  return tfv::Compare(ctx, "output", got, want, n_out);
}
