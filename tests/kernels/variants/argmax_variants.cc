// argmax family (kernels/argmax): every variant vs s8_argmax__ref.
#include "tests/kernels/variants/variant_harness.h"

namespace {

enum EdgeKind {
  kLastAxis,  // inner 1 (a classifier's output), row lengths around the 16-byte vector
  kTies,      // values from a tiny set: many ties, the lowest index must win
  kInner,     // an axis with inner > 1 (the vector variant's fallback)
  kNumKinds
};
constexpr int32_t kNumTails = 8;
const int32_t kTails[kNumTails] = {1, 2, 15, 16, 17, 31, 33, 100};
constexpr int32_t kEdgeCases = kNumKinds * kNumTails * 2;  // x arg max / arg min
const char* const kKindNames[kNumKinds] = {"last_axis", "ties", "inner"};
const char* EdgeKindName(int32_t e) { return kKindNames[e % kNumKinds]; }

}  // namespace

TFV_FAMILY_TEST(argmax, kEdgeCases, EdgeKindName) {
  s8_argmax_params p{};
  bool few_values = false;
  if (ctx.Edge()) {
    const int32_t e = ctx.EdgeIndex();
    const int32_t n = kTails[(e / kNumKinds) % kNumTails];
    p.is_min = (e / (kNumKinds * kNumTails)) % 2;
    p.outer = ctx.rng.Range(1, 4);
    p.axis_size = n;
    p.inner = e % kNumKinds == kInner ? ctx.rng.Range(2, 7) : 1;
    few_values = e % kNumKinds == kTies;
  } else {
    p.outer = ctx.rng.Range(1, 6);
    p.axis_size = ctx.rng.Range(1, 300);
    p.inner = ctx.rng.Chance(50) ? 1 : ctx.rng.Range(1, 9);
    p.is_min = ctx.rng.Chance(50) ? 1 : 0;
    few_values = ctx.rng.Chance(30);
  }
  const int32_t n_in = p.outer * p.axis_size * p.inner, n_out = p.outer * p.inner;
  int8_t* in = ctx.Alloc<int8_t>(n_in);
  int32_t* want = ctx.Alloc<int32_t>(n_out);
  int32_t* got = ctx.Alloc<int32_t>(n_out);
  if (in == nullptr || want == nullptr || got == nullptr) return false;
  ctx.rng.Fill(in, n_in);
  if (few_values) {
    for (int32_t i = 0; i < n_in; ++i) in[i] = static_cast<int8_t>((in[i] & 3) * 40 - 60);
  }
  for (int32_t i = 0; i < n_out; ++i) want[i] = got[i] = -7;  // unwritten shows up
  ctx.Params("outer %d axis %d inner %d is_min %d", (int)p.outer, (int)p.axis_size,
             (int)p.inner, (int)p.is_min);
  s8_argmax__ref(&p, in, want);
  ctx.Variant (&s8_argmax__ref)(&p, in, got);
  return tfv::Compare(ctx, "output", got, want, n_out);
}
