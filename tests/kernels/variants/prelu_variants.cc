// prelu (kernels/mul): every variant vs s8_prelu__ref. Shapes: bcast_cases.h (the slopes
// as input 2: per channel, one value, rows, and the general broadcasts; in place over x).
#include <cstdio>

#include "tests/kernels/variants/bcast_cases.h"

namespace {

s8_prelu_params MakeParams(tfv::Context& ctx, const tfv::bcast::Shapes& c) {
  tfv::Rng& rng = ctx.rng;
  s8_prelu_params p{};
  p.shape = tfv::bcast::Fill(c);
  const bool extremes = ctx.Edge() ? (ctx.EdgeIndex() & 1) != 0 : rng.Chance(10);
  const int32_t offs[] = {128, -127, 0, -128};
  p.input_offset = extremes ? rng.Pick(offs) : rng.Range(-128, 128);
  p.alpha_offset = extremes ? rng.Pick(offs) : rng.Range(-128, 128);
  p.output_offset = extremes ? (rng.Chance(50) ? -128 : 127) : rng.Range(-128, 127);
  // s_in / s_out near 1, s_in * s_alpha / s_out well below (up to the ends of
  // s8_prelu__dsp's ranges: shift 1 in [-17, 5], shift 2 in [-17, -3]); now and then
  // anywhere.
  if (rng.Chance(80)) {
    tfv::RandomMultiplierIn(rng, &p.output_multiplier_1, &p.output_shift_1, -3, 6);
    tfv::RandomMultiplierIn(rng, &p.output_multiplier_2, &p.output_shift_2, -18, -2);
  } else {
    tfv::RandomMultiplier(rng, &p.output_multiplier_1, &p.output_shift_1);
    tfv::RandomMultiplier(rng, &p.output_multiplier_2, &p.output_shift_2);
  }
  p.rounding = rng.Chance(50) ? TF_ROUNDING_SINGLE : TF_ROUNDING_DOUBLE;
  if (ctx.Edge()) p.rounding = c.pass == 0 ? TF_ROUNDING_DOUBLE : TF_ROUNDING_SINGLE;
  return p;
}

}  // namespace

TFV_FAMILY_TEST(prelu, tfv::bcast::kEdgeCases, tfv::bcast::EdgeKindName) {
  const tfv::bcast::Shapes c = tfv::bcast::AnyShapes(ctx);
  const s8_prelu_params p = MakeParams(ctx, c);
  char quant[200];
  snprintf(quant, sizeof quant, "off %d,%d,%d m1 %d s1 %d m2 %d s2 %d rounding %d",
           (int)p.input_offset, (int)p.alpha_offset, (int)p.output_offset,
           (int)p.output_multiplier_1, (int)p.output_shift_1, (int)p.output_multiplier_2,
           (int)p.output_shift_2, (int)p.rounding);
  tfv::bcast::ShapeParams(ctx, p.shape, c.in_place, quant);
  return tfv::bcast::RunAndCompare(ctx, c, p, &s8_prelu__ref);
}
