// bmm family (kernels/bmm): every variant vs s8_bmm__ref.
#include "tests/kernels/variants/variant_harness.h"

namespace {

// Depths around the vector widths (16 int8 lanes, groups of 4 for SMLAD) and attention head
// sizes; rows / cols odd and even (2 x 2 blocks with a leftover row / column).
const int32_t kEdgeDepth[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 64, 65};
const int32_t kEdgeRows[] = {1, 2, 3, 4, 5, 7, 8, 9};
constexpr int32_t kNumEdgeDepth = sizeof(kEdgeDepth) / sizeof(kEdgeDepth[0]);
constexpr int32_t kNumEdgeRows = sizeof(kEdgeRows) / sizeof(kEdgeRows[0]);
// Edge kinds: the operand layouts (test names: kernel_variants.<symbol>.<kind>); "attention":
// single rounding, the int8 range as the clamp, shifts in [-24, -1] (s8_bmm__mve's
// small-depth path for depth <= 32), every layout, leftover rows / columns and lhs chunks of
// more than 64 rows.
const char* const kKindNames[5] = {"plain", "adj_y", "adj_x", "adj_xy_broadcast", "attention"};
constexpr int32_t kAttention = 4;
constexpr int32_t kEdgeCases = kNumEdgeDepth * (kAttention + 4);  // attention: 4 layouts
int32_t KindOf(int32_t e) {
  const int32_t k = e / kNumEdgeDepth;
  return k < kAttention ? k : kAttention;
}
const char* EdgeKindName(int32_t e) { return kKindNames[KindOf(e)]; }

void Offsets(tfv::Rng& rng, s8_bmm_params& p, bool extremes) {
  struct Io {
    int32_t input_offset, output_offset, act_min, act_max;
  } io{};
  tfv::RandomQuant(rng, io, extremes, 20);
  p.lhs_offset = io.input_offset;
  p.output_offset = io.output_offset;
  p.act_min = io.act_min;
  p.act_max = io.act_max;
  const int32_t ends[] = {128, -127, 0};
  p.rhs_offset = extremes ? rng.Pick(ends) : (rng.Chance(20) ? 0 : rng.Range(-127, 128));
}

s8_bmm_params RandomCase(tfv::Rng& rng) {
  s8_bmm_params p{};
  p.batches = rng.Chance(40) ? 1 : rng.Range(2, 4);
  p.lhs_batches = rng.Chance(20) ? 1 : p.batches;
  p.rhs_batches = rng.Chance(20) ? 1 : p.batches;
  p.rows = rng.Range(1, 12);
  p.cols = rng.Range(1, 12);
  p.depth = rng.Chance(50) ? rng.Range(1, 40) : rng.Range(1, 150);
  p.lhs_transposed = rng.Chance(30) ? 1 : 0;
  p.rhs_transposed = rng.Chance(50) ? 1 : 0;
  Offsets(rng, p, rng.Chance(10));
  tfv::RandomMultiplier(rng, &p.multiplier, &p.shift);
  p.rounding = rng.Chance(50) ? TF_ROUNDING_SINGLE : TF_ROUNDING_DOUBLE;
  return p;
}

s8_bmm_params AttentionCase(tfv::Rng& rng, int32_t e) {
  s8_bmm_params p{};
  const int32_t rows[] = {1, 2, 3, 5, 16, 31, 32, 64, 65, 67};
  const int32_t cols[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 18, 32, 33};
  const int32_t wide[] = {17, 18, 32, 33};  // [depth, cols] rhs: 16-bit gather offsets
  const int32_t shifts[] = {-24, -23, -1, -2, -9, -25, -31};  // -25, -31: the general path
  p.depth = kEdgeDepth[e % kNumEdgeDepth];
  const int32_t layout = e / kNumEdgeDepth - kAttention;  // 0..3
  p.rows = rng.Pick(rows);
  p.cols = rng.Chance(50) ? rng.Pick(wide) : rng.Pick(cols);
  p.batches = rng.Range(1, 4);
  p.lhs_batches = rng.Chance(25) ? 1 : p.batches;
  p.rhs_batches = rng.Chance(25) ? 1 : p.batches;
  p.lhs_transposed = layout & 1;
  p.rhs_transposed = layout >> 1;
  Offsets(rng, p, (e & 1) != 0);
  p.act_min = -128;
  p.act_max = 127;
  tfv::RandomMultiplierIn(rng, &p.multiplier, &p.shift, -14, -4);
  if (rng.Chance(50)) p.shift = rng.Pick(shifts);
  p.rounding = TF_ROUNDING_SINGLE;
  return p;
}

s8_bmm_params EdgeCase(tfv::Rng& rng, int32_t e) {
  if (KindOf(e) == kAttention) return AttentionCase(rng, e);
  s8_bmm_params p{};
  const int32_t di = e % kNumEdgeDepth;
  const int32_t kind = KindOf(e);
  p.depth = kEdgeDepth[di];
  p.rows = kEdgeRows[(di * 3 + kind) % kNumEdgeRows];
  p.cols = kEdgeRows[(di * 5 + 2 * kind + 1) % kNumEdgeRows];
  p.batches = kind == 3 ? 4 : 2;
  p.lhs_batches = kind == 3 ? 2 : p.batches;  // kind 3: lhs repeats (batch b reads b % 2)
  p.rhs_batches = kind == 3 ? 1 : p.batches;
  p.lhs_transposed = kind >= 2 ? 1 : 0;
  p.rhs_transposed = kind == 1 || kind == 3 ? 1 : 0;
  Offsets(rng, p, (e & 1) != 0);
  tfv::RandomMultiplierIn(rng, &p.multiplier, &p.shift, -14, -4);
  p.rounding = (e / 2) % 2 == 0 ? TF_ROUNDING_DOUBLE : TF_ROUNDING_SINGLE;
  return p;
}

}  // namespace

TFV_FAMILY_TEST(bmm, kEdgeCases, EdgeKindName) {
  s8_bmm_params p = ctx.Edge() ? EdgeCase(ctx.rng, ctx.EdgeIndex()) : RandomCase(ctx.rng);
  const int32_t n_lhs = p.lhs_batches * p.rows * p.depth;
  const int32_t n_rhs = p.rhs_batches * p.depth * p.cols;
  const int32_t n_out = p.batches * p.rows * p.cols;
  int8_t* lhs = ctx.Alloc<int8_t>(n_lhs);
  int8_t* rhs = ctx.Alloc<int8_t>(n_rhs);
  int8_t* want = ctx.Output(n_out);
  int8_t* got = ctx.Output(n_out);
  if (lhs == nullptr || rhs == nullptr || want == nullptr || got == nullptr) return false;
  tfv::FillStress(ctx.rng, lhs, n_lhs);
  tfv::FillStress(ctx.rng, rhs, n_rhs);
  ctx.Params("batches %d (lhs %d rhs %d) %dx%dx%d adj %d/%d offsets %d/%d out %d act [%d,%d] "
             "mult %d shift %d rounding %d",
             (int)p.batches, (int)p.lhs_batches, (int)p.rhs_batches, (int)p.rows, (int)p.depth,
             (int)p.cols, (int)p.lhs_transposed, (int)p.rhs_transposed, (int)p.lhs_offset,
             (int)p.rhs_offset, (int)p.output_offset, (int)p.act_min, (int)p.act_max,
             (int)p.multiplier, (int)p.shift, (int)p.rounding);
  void* scratch = ctx.Scratch(&p);
  s8_bmm__ref(&p, lhs, rhs, want, nullptr);
  ctx.Variant(&s8_bmm__ref)(&p, lhs, rhs, got, scratch);
  return tfv::Compare(ctx, "output", got, want, n_out);
}
