// transpose family (kernels/transpose): every variant vs s8_transpose__ref.
#include <initializer_list>

#include "tests/kernels/variants/variant_harness.h"

namespace {

enum EdgeKind {
  kToNchw,   // [H*W, C] -> [C, H*W]: NHWC -> NCHW of a batch-1 map (as the compiler merges it)
  kToNhwc,   // [C, H*W] -> [H*W, C]
  kShuffle,  // [H*W, g, C/g] -> [H*W, C/g, g]: channel shuffle in NHWC (C/g up to 49: one to
             // four 16-byte steps of the Helium variant's scatter loop)
  kRows,     // [A, B, C] -> [B, A, C]: whole rows move (contiguous inner copy)
  kWide,     // a gather stride past 16-bit offsets (the vector variant's scalar fallback)
  kRank6,    // six dims, a reversal
  kAxes3,    // [1, 3, 1, N] -> [1, N, 1, 3]: a Conv1d input NCW -> NWC (__scalar's interleave)
  kShuffle2,  // [H*W, 2, N] -> [H*W, N, 2]: 2-group shuffle (__scalar's interleave, 8 + 4 + tail)
  kPair,      // [2, N] -> [N, 2] with size-1 dims around (the same interleave, one block)
  kNumKinds
};
constexpr int32_t kNumTails = 8;
const int32_t kTails[kNumTails] = {1, 3, 7, 8, 9, 15, 16, 17};
constexpr int32_t kEdgeCases = kNumKinds * kNumTails;
const char* const kKindNames[kNumKinds] = {"to_nchw", "to_nhwc", "shuffle",
                                           "rows",    "wide",    "rank6", "axes3",
                                           "shuffle2", "pair"};
const char* EdgeKindName(int32_t e) { return kKindNames[e % kNumKinds]; }

// dims (outermost first, up to 6) and perm of the used dims, left-padded to 6.
s8_transpose_params Make(std::initializer_list<int32_t> dims, std::initializer_list<int32_t> perm) {
  s8_transpose_params p{};
  const int lead = kS8TransposeMaxDims - static_cast<int>(dims.size());
  for (int i = 0; i < kS8TransposeMaxDims; ++i) p.input_dims[i] = 1, p.perm[i] = i;
  int i = lead;
  for (int32_t d : dims) p.input_dims[i++] = d;
  i = lead;
  for (int32_t d : perm) p.perm[i++] = d + lead;
  return p;
}

s8_transpose_params RandomCase(tfv::Rng& rng) {
  s8_transpose_params p{};
  for (;;) {
    int32_t total = 1;
    for (int i = 0; i < kS8TransposeMaxDims; ++i) {
      p.input_dims[i] = rng.Chance(30) ? 1 : rng.Range(1, 9);
      total *= p.input_dims[i];
    }
    if (total <= 6000) break;
  }
  for (int i = 0; i < kS8TransposeMaxDims; ++i) p.perm[i] = i;
  for (int i = kS8TransposeMaxDims - 1; i > 0; --i) {  // Fisher-Yates
    const int j = rng.Range(0, i);
    const int32_t t = p.perm[i];
    p.perm[i] = p.perm[j];
    p.perm[j] = t;
  }
  return p;
}

s8_transpose_params EdgeCase(tfv::Rng& rng, int32_t e) {
  const int32_t n = kTails[(e / kNumKinds) % kNumTails];
  const int32_t hw = rng.Range(1, 40);
  switch (e % kNumKinds) {
    case kToNchw:
      return Make({hw, n}, {1, 0});
    case kToNhwc:
      return Make({n, hw}, {1, 0});
    case kShuffle:
      return Make({hw, rng.Range(2, 4), n + 16 * rng.Range(0, 2)}, {0, 2, 1});
    case kRows:
      return Make({rng.Range(1, 5), n, rng.Range(1, 33)}, {1, 0, 2});
    case kWide:
      return Make({n % 4 + 1, 9400 + rng.Range(0, 9)}, {1, 0});  // (fits the arena)
    case kAxes3:
      return Make({1, 3, 1, n * rng.Range(1, 20)}, {0, 3, 2, 1});
    case kShuffle2:  // n, 8 k + n and 8 k + 4 + n columns: each of the loop's exits
      return Make({hw, 2, n + 4 * rng.Range(0, 30)}, {0, 2, 1});
    case kPair:
      return Make({1, 2, 1, n + rng.Range(0, 600)}, {3, 1, 2, 0});
    default:
      return Make({2, n, 3, 2, rng.Range(1, 4), 2}, {5, 4, 3, 2, 1, 0});
  }
}

}  // namespace

TFV_FAMILY_TEST(transpose, kEdgeCases, EdgeKindName) {
  const s8_transpose_params p = ctx.Edge() ? EdgeCase(ctx.rng, ctx.EdgeIndex()) : RandomCase(ctx.rng);
  int32_t n = 1;
  for (int i = 0; i < kS8TransposeMaxDims; ++i) n *= p.input_dims[i];
  int8_t* in = ctx.Alloc<int8_t>(n);
  int8_t* want = ctx.Output(n);
  int8_t* got = ctx.Output(n);
  if (in == nullptr || want == nullptr || got == nullptr) return false;
  ctx.rng.Fill(in, n);
  ctx.Params("dims [%d,%d,%d,%d,%d,%d] perm [%d,%d,%d,%d,%d,%d]", (int)p.input_dims[0],
             (int)p.input_dims[1], (int)p.input_dims[2], (int)p.input_dims[3],
             (int)p.input_dims[4], (int)p.input_dims[5], (int)p.perm[0], (int)p.perm[1],
             (int)p.perm[2], (int)p.perm[3], (int)p.perm[4], (int)p.perm[5]);
  s8_transpose__ref(&p, in, want);
  ctx.Variant (&s8_transpose__ref)(&p, in, got);
  return tfv::Compare(ctx, "output", got, want, n);
}
