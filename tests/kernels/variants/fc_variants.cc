// fc family (kernels/fc): every variant vs s8_fc__ref.
#include "tests/kernels/variants/variant_harness.h"

namespace {

// Feature counts around the vector widths (16 int8 lanes, 4 int32 lanes, SMLAD pairs) and
// the zoo's layer sizes (AD autoencoder 640/128/8, heads 64->12, 256->2).
const int32_t kEdgeIn[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 128, 256, 640};
const int32_t kEdgeOut[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 33};
constexpr int32_t kNumEdgeIn = sizeof(kEdgeIn) / sizeof(kEdgeIn[0]);
constexpr int32_t kNumEdgeOut = sizeof(kEdgeOut) / sizeof(kEdgeOut[0]);
constexpr int32_t kEdgeCases = kNumEdgeIn * 4;
// Edge kinds: the pass of EdgeCase (test names: kernel_variants.<symbol>.<kind>).
const char* const kKindNames[4] = {"per_tensor_folded", "per_channel", "batches3",
                                   "per_channel_batches2"};
const char* EdgeKindName(int32_t e) { return kKindNames[e / kNumEdgeIn]; }

struct Case {
  s8_fc_params p;
  int32_t bias_kind;
  int32_t mult_kind;
  // 1: inputs and weights in [-4, 4], |bias| <= 64, shift in [-4, -1] (mult kind 4): outputs
  // inside the clamp with exact rounding ties (h = 2^(e-1) mod 2^e) on both signs.
  bool small = false;
};

Case RandomCase(tfv::Rng& rng) {
  Case c{};
  s8_fc_params& p = c.p;
  p.batches = rng.Chance(75) ? 1 : rng.Range(2, 5);
  p.in_features = rng.Chance(50) ? rng.Range(1, 40) : rng.Range(1, 300);
  p.out_features = rng.Chance(50) ? rng.Range(1, 12) : rng.Range(1, 40);
  while (p.batches * p.in_features * p.out_features > 40000) p.in_features /= 2;
  if (p.in_features < 1) p.in_features = 1;
  p.per_channel = rng.Chance(50) ? 1 : 0;
  tfv::RandomQuant(rng, p, rng.Chance(10), 50, false);
  p.rounding = rng.Chance(50) ? TF_ROUNDING_SINGLE : TF_ROUNDING_DOUBLE;
  c.bias_kind = rng.Chance(10) ? 0 : (rng.Chance(85) ? 1 : 2);
  if (c.bias_kind != 0 && rng.Chance(12)) c.bias_kind = 3;
  c.mult_kind = rng.Chance(70) ? 0 : rng.Range(1, 3);
  if (rng.Chance(15)) {
    c.small = true;
    c.mult_kind = 4;
    if (c.bias_kind != 0) c.bias_kind = 1;
    // Mostly the shapes of the DSP kernel's per-tensor 5-row path (k % 4 == 0, n >= 5).
    if (rng.Chance(60)) p.in_features = (p.in_features + 3) & ~3;
    if (p.out_features < 5 && rng.Chance(60)) p.out_features += 5;
  }
  return c;
}

Case EdgeCase(tfv::Rng& rng, int32_t e) {
  Case c{};
  s8_fc_params& p = c.p;
  const int32_t ii = e % kNumEdgeIn;
  const int32_t pass = e / kNumEdgeIn;  // 0..3
  p.in_features = kEdgeIn[ii];
  p.out_features = kEdgeOut[(ii * 3 + pass) % kNumEdgeOut];
  if (p.in_features >= 256 && pass == 1) p.out_features = 128;  // AD's 640 -> 128
  p.batches = (pass == 2) ? 3 : ((pass == 3) ? 2 : 1);
  p.per_channel = (pass & 1);
  tfv::RandomQuant(rng, p, (e & 1) != 0, 50, false);
  if (pass == 0) p.input_offset = 0;
  p.rounding = (e / 2) % 2 == 0 ? TF_ROUNDING_DOUBLE : TF_ROUNDING_SINGLE;
  c.bias_kind = (e % 7 == 3) ? 0 : ((e % 5 == 2) ? 2 : ((e % 11 == 5) ? 3 : 1));
  c.mult_kind = (e / 3) % 4;
  return c;
}

}  // namespace

TFV_FAMILY_TEST(fc, kEdgeCases, EdgeKindName) {
  Case c = ctx.Edge() ? EdgeCase(ctx.rng, ctx.EdgeIndex()) : RandomCase(ctx.rng);
  s8_fc_params& p = c.p;
  const int32_t n_in = p.batches * p.in_features;
  const int32_t n_w = p.out_features * p.in_features;
  const int32_t n_out = p.batches * p.out_features;
  const int32_t n_q = p.per_channel ? p.out_features : 1;

  int8_t* input = ctx.Alloc<int8_t>(n_in);
  int8_t* weights = ctx.Alloc<int8_t>(n_w);
  int32_t* bias = c.bias_kind == 0 ? nullptr : ctx.Alloc<int32_t>(p.out_features);
  int32_t* mult = ctx.Alloc<int32_t>(n_q);
  int32_t* shift = ctx.Alloc<int32_t>(n_q);
  int8_t* want = ctx.Output(n_out);
  int8_t* got = ctx.Output(n_out);
  if (input == nullptr || weights == nullptr || mult == nullptr || shift == nullptr ||
      want == nullptr || got == nullptr) {
    return false;
  }
  if (c.small) {
    // x + input_offset in [-4, 4] where int8 allows it.
    const int32_t lo = -4 - p.input_offset, hi = 4 - p.input_offset;
    ctx.rng.Fill(input, n_in, lo < -128 ? -128 : lo, hi > 127 ? 127 : hi);
    ctx.rng.Fill(weights, n_w, -4, 4);
  } else {
    tfv::FillStress(ctx.rng, input, n_in);
    tfv::FillStress(ctx.rng, weights, n_w);
  }
  if (c.small && bias != nullptr) {
    ctx.rng.FillInt32(bias, p.out_features, -64, 64);
  } else if (c.bias_kind == 3) {
    // |bias| in [2^29, 2^31 - 2^26]: accumulators reach 2^30 (requantization shortcuts that
    // double them must saturate correctly) without wrapping int32.
    for (int32_t o = 0; o < p.out_features; ++o) {
      const int32_t mag = ctx.rng.Range(1 << 29, 0x7FFFFFFF - (1 << 26));
      bias[o] = ctx.rng.Chance(50) ? mag : -mag;
    }
  } else {
    tfv::FillBias(ctx.rng, bias, p.out_features, c.bias_kind);
  }
  tfv::MultipliersOfKind(ctx.rng, c.mult_kind, mult, shift, n_q);
  p.multiplier = mult;
  p.shift = shift;
  ctx.Params("batches %d in %d out %d per_channel %d in_off %d out_off %d act [%d,%d] "
             "rounding %d bias kind %d mult kind %d small %d",
             (int)p.batches, (int)p.in_features, (int)p.out_features, (int)p.per_channel,
             (int)p.input_offset, (int)p.output_offset, (int)p.act_min, (int)p.act_max,
             (int)p.rounding, (int)c.bias_kind, (int)c.mult_kind, (int)c.small);

  void* scratch = ctx.Scratch(&p);
  s8_fc__ref(&p, input, weights, bias, want, nullptr);
  ctx.Variant(&s8_fc__ref)(&p, input, weights, bias, got, scratch);
  return tfv::Compare(ctx, "output", got, want, n_out);
}
