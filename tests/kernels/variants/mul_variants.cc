// mul family (kernels/mul): every variant vs s8_mul__ref. Shapes: bcast_cases.h (the
// big_bcast kinds reach the scalar and per-channel table paths).
#include <cstdio>

#include "tests/kernels/variants/bcast_cases.h"

namespace {

s8_mul_params MakeParams(tfv::Context& ctx, const tfv::bcast::Shapes& c) {
  tfv::Rng& rng = ctx.rng;
  s8_mul_params p{};
  p.shape = tfv::bcast::Fill(c);
  const bool extremes = ctx.Edge() ? (ctx.EdgeIndex() & 1) != 0 : rng.Chance(10);
  const int32_t offs[] = {128, -127, 0, -128};
  tfv::bcast::RandomOffsets(rng, extremes, offs, p);
  // s1 * s2 / s_out: typically 2^-10 .. 1; now and then the whole range.
  if (rng.Chance(80)) {
    tfv::RandomMultiplierIn(rng, &p.output_multiplier, &p.output_shift, -12, 1);
  } else {
    tfv::RandomMultiplier(rng, &p.output_multiplier, &p.output_shift);
  }
  tfv::RandomClamp(rng, p.output_offset, &p.act_min, &p.act_max);
  p.rounding = rng.Chance(50) ? TF_ROUNDING_SINGLE : TF_ROUNDING_DOUBLE;
  if (ctx.Edge()) p.rounding = c.pass == 0 ? TF_ROUNDING_DOUBLE : TF_ROUNDING_SINGLE;
  if (ctx.Edge() && c.pass == 1) {
    // Single rounding: half the cases unclamped with input offsets in [-127, 128] and an
    // output zero point that does not saturate alone (the __dsp / __mve fast paths), and
    // the ends of __dsp's output shift range [-17, -2] (-2: most outputs saturate).
    const int32_t t = ctx.EdgeIndex() / tfv::bcast::kNumKinds;
    if (t % 2 == 0) {
      p.act_min = -128, p.act_max = 127;
      p.output_offset = rng.Range(-100, 100);
      if (p.input1_offset < -127) p.input1_offset = -127;
      if (p.input2_offset < -127) p.input2_offset = -127;
    }
    if (t % 3 == 1) p.output_shift = -2;
    if (t % 3 == 2) p.output_shift = -17;
  }
  return p;
}

}  // namespace

TFV_FAMILY_TEST(mul, tfv::bcast::kEdgeCases, tfv::bcast::EdgeKindName) {
  const tfv::bcast::Shapes c = tfv::bcast::AnyShapes(ctx);
  const s8_mul_params p = MakeParams(ctx, c);
  char quant[160];
  snprintf(quant, sizeof quant, "off %d,%d,%d mo %d so %d act [%d,%d] rounding %d",
           (int)p.input1_offset, (int)p.input2_offset, (int)p.output_offset,
           (int)p.output_multiplier, (int)p.output_shift, (int)p.act_min, (int)p.act_max,
           (int)p.rounding);
  tfv::bcast::ShapeParams(ctx, p.shape, c.in_place, quant);
  return tfv::bcast::RunAndCompare(ctx, c, p, &s8_mul__ref);
}
