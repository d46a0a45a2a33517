// gather family (kernels/gather): every variant vs s8_gather__ref.
#include "tests/kernels/variants/variant_harness.h"

namespace {

enum EdgeKind {
  kRows,     // outer 1 (an embedding table): row lengths around the word size
  kChannel,  // inner 1: single bytes (a gather over the last axis)
  kRepeat,   // repeated and reversed indices
  kWrap,     // wrap_negative: indices in [-axis_size, axis_size)
  kNumKinds
};
constexpr int32_t kNumTails = 8;
const int32_t kTails[kNumTails] = {1, 2, 3, 4, 7, 8, 17, 64};
constexpr int32_t kEdgeCases = kNumKinds * kNumTails;
const char* const kKindNames[kNumKinds] = {"rows", "channel", "repeat", "wrap"};
const char* EdgeKindName(int32_t e) { return kKindNames[e % kNumKinds]; }

}  // namespace

TFV_FAMILY_TEST(gather, kEdgeCases, EdgeKindName) {
  s8_gather_params p{};
  int32_t kind = -1;
  if (ctx.Edge()) {
    const int32_t e = ctx.EdgeIndex();
    kind = e % kNumKinds;
    const int32_t n = kTails[e / kNumKinds];
    p.outer = kind == kRows ? 1 : ctx.rng.Range(1, 4);
    p.axis_size = ctx.rng.Range(1, 20);
    p.count = ctx.rng.Range(1, 12);
    p.inner = kind == kChannel ? 1 : n;
  } else {
    p.outer = ctx.rng.Range(1, 5);
    p.axis_size = ctx.rng.Range(1, 60);
    p.count = ctx.rng.Range(1, 40);
    p.inner = ctx.rng.Range(1, 70);
    p.wrap_negative = ctx.rng.Range(0, 1);
  }
  if (kind == kWrap) p.wrap_negative = 1;
  const int32_t n_in = p.outer * p.axis_size * p.inner, n_out = p.outer * p.count * p.inner;
  int8_t* in = ctx.Alloc<int8_t>(n_in);
  int32_t* idx = ctx.Alloc<int32_t>(p.count);
  int8_t* want = ctx.Alloc<int8_t>(n_out);
  int8_t* got = ctx.Alloc<int8_t>(n_out);
  if (in == nullptr || idx == nullptr || want == nullptr || got == nullptr) return false;
  ctx.rng.Fill(in, n_in);
  for (int32_t c = 0; c < p.count; ++c) {
    idx[c] = kind == kRepeat ? (p.axis_size - 1 - c % p.axis_size)
             : ctx.rng.Range(p.wrap_negative ? -p.axis_size : 0, p.axis_size - 1);
  }
  for (int32_t i = 0; i < n_out; ++i) want[i] = got[i] = 0x5a;
  ctx.Params("outer %d axis %d count %d inner %d wrap %d", (int)p.outer, (int)p.axis_size,
             (int)p.count, (int)p.inner, (int)p.wrap_negative);
  s8_gather__ref(&p, in, idx, want);
  ctx.Variant (&s8_gather__ref)(&p, in, idx, got);
  return tfv::Compare(ctx, "output", got, want, n_out);
}
