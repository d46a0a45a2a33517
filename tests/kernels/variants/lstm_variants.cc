// lstm family (kernels/lstm): every variant vs s8_lstm__ref.
#include "tests/kernels/variants/variant_harness.h"

namespace {

// Input widths around the vector widths (16 int8 lanes, 4 for SMLAD) and unit counts whose
// 4 * units gate rows leave 1..3 rows after the 2- and 4-row blocks.
const int32_t kEdgeFeatures[] = {1, 2, 3, 4, 5, 15, 16, 17, 33};
const int32_t kEdgeUnits[] = {1, 2, 3, 5, 8, 13};
constexpr int32_t kNumEdge = (sizeof(kEdgeFeatures) / sizeof(kEdgeFeatures[0])) *
                             (sizeof(kEdgeUnits) / sizeof(kEdgeUnits[0]));
const char* EdgeKindName(int32_t) { return "shapes"; }

void Fill(tfv::Rng& rng, s8_lstm_params& p, bool saturating) {
  for (int i = 0; i < 8; ++i) {
    // Gate scales around TFLite's (w_scale * x_scale / 2^-12: shifts near -6..+2);
    // saturating cases reach the int16 clamps.
    tfv::RandomMultiplierIn(rng, &p.gate_multiplier[i], &p.gate_shift[i],
                            saturating ? -2 : -10, saturating ? 6 : -2);
  }
  tfv::RandomMultiplierIn(rng, &p.hidden_multiplier, &p.hidden_shift, -24, -14);
  p.hidden_offset = rng.Range(-128, 127);
  p.hidden_init = rng.Range(-128, 127);
  p.cell_log2 = rng.Range(-15, -9);
  p.cell_clip = rng.Chance(50) ? 0 : rng.Range(1, 32767);
}

}  // namespace

TFV_FAMILY_TEST(lstm, kNumEdge, EdgeKindName) {
  s8_lstm_params p{};
  if (ctx.Edge()) {
    const int32_t e = ctx.EdgeIndex();
    const int32_t nf = sizeof(kEdgeFeatures) / sizeof(kEdgeFeatures[0]);
    p.in_features = kEdgeFeatures[e % nf];
    p.units = kEdgeUnits[e / nf];
    p.steps = 1 + e % 4;
  } else {
    p.in_features = ctx.rng.Range(1, 40);
    p.units = ctx.rng.Range(1, 24);
    p.steps = ctx.rng.Range(1, 6);
  }
  Fill(ctx.rng, p, ctx.rng.Chance(25));
  const int32_t h = p.units, f = p.in_features;
  int8_t* x = ctx.Alloc<int8_t>(p.steps * f);
  int8_t* wx = ctx.Alloc<int8_t>(4 * h * f);
  int8_t* wh = ctx.Alloc<int8_t>(4 * h * h);
  int32_t* bias = ctx.Alloc<int32_t>(8 * h);
  int8_t* want = ctx.Output(p.steps * h);
  int8_t* got = ctx.Output(p.steps * h);
  if (!x || !wx || !wh || !bias || !want || !got) return false;
  ctx.rng.Fill(x, p.steps * f);
  ctx.rng.Fill(wx, 4 * h * f);
  ctx.rng.Fill(wh, 4 * h * h);
  ctx.rng.FillInt32(bias, 8 * h, -40000, 40000);
  ctx.Params("steps %d features %d units %d cell_log2 %d clip %d hidden mult %d shift %d",
             (int)p.steps, (int)f, (int)h, (int)p.cell_log2, (int)p.cell_clip,
             (int)p.hidden_multiplier, (int)p.hidden_shift);
  void* ref_scratch = ctx.Scratch(&p);
  void* scratch = ctx.Scratch(&p);
  s8_lstm__ref(&p, x, wx, wh, bias, want, ref_scratch);
  ctx.Variant(&s8_lstm__ref)(&p, x, wx, wh, bias, got, scratch);
  return tfv::Compare(ctx, "output", got, want, p.steps * h);
}
