// add family (kernels/add): every add, sub and squared_difference variant vs its reference
// (the same parameters and cases; squared_difference with its own shift ranges). Shapes: bcast_cases.h.
#include <cstdio>

#include "tests/kernels/variants/bcast_cases.h"

namespace {

void RandomQuant(tfv::Rng& rng, s8_add_params& p, bool extremes) {
  const int32_t offs[] = {128, -127, 0};
  tfv::bcast::RandomOffsets(rng, extremes, offs, p);
  p.left_shift = rng.Chance(85) ? 20 : rng.Range(0, 22);
  // Input scales s_i / (2 max): one of them exactly 0.5 (shift 0) most of the time.
  const int32_t which = rng.Range(0, 2);
  tfv::RandomMultiplierIn(rng, &p.input1_multiplier, &p.input1_shift, -8, 0);
  tfv::RandomMultiplierIn(rng, &p.input2_multiplier, &p.input2_shift, -8, 0);
  if (which == 0) {
    p.input1_multiplier = 1 << 30;
    p.input1_shift = 0;
  }
  if (which == 1) {
    p.input2_multiplier = 1 << 30;
    p.input2_shift = 0;
  }
  if (rng.Chance(10)) tfv::RandomMultiplierIn(rng, &p.input1_multiplier, &p.input1_shift, -31, 0);
  if (rng.Chance(10)) tfv::RandomMultiplierIn(rng, &p.input2_multiplier, &p.input2_shift, -31, 0);
  if (rng.Chance(85)) {
    tfv::RandomMultiplierIn(rng, &p.output_multiplier, &p.output_shift, -22, -12);
  } else {
    tfv::RandomMultiplierIn(rng, &p.output_multiplier, &p.output_shift, -31, 0);
  }
  tfv::RandomClamp(rng, p.output_offset, &p.act_min, &p.act_max);
  p.rounding = rng.Chance(50) ? TF_ROUNDING_SINGLE : TF_ROUNDING_DOUBLE;
}

// Double rounding on pass 0 of the edge cases, single on pass 1; random cases pick.
s8_add_params MakeParams(tfv::Context& ctx, const tfv::bcast::Shapes& c) {
  s8_add_params p{};
  p.shape = tfv::bcast::Fill(c);
  RandomQuant(ctx.rng, p, ctx.Edge() ? (ctx.EdgeIndex() & 1) != 0 : ctx.rng.Chance(10));
  if (ctx.Edge()) p.rounding = c.pass == 0 ? TF_ROUNDING_DOUBLE : TF_ROUNDING_SINGLE;
  return p;
}

bool AddOrSub(tfv::Context& ctx,
              void (*ref)(const s8_add_params*, const int8_t*, const int8_t*, int8_t*)) {
  const tfv::bcast::Shapes c = tfv::bcast::AnyShapes(ctx);
  s8_add_params p = MakeParams(ctx, c);
  if (ref == &s8_squared_difference__ref) {
    // TFLite's int8 squared difference: left shift 7 (below: the range the kernel allows),
    // an output multiplier of either magnitude.
    p.left_shift = ctx.rng.Chance(85) ? 7 : ctx.rng.Range(0, 7);
    tfv::RandomMultiplier(ctx.rng, &p.output_multiplier, &p.output_shift);
  }
  char quant[200];
  snprintf(quant, sizeof quant,
           "off %d,%d,%d ls %d m1 %d s1 %d m2 %d s2 %d mo %d so %d act [%d,%d] rounding %d",
           (int)p.input1_offset, (int)p.input2_offset, (int)p.output_offset, (int)p.left_shift,
           (int)p.input1_multiplier, (int)p.input1_shift, (int)p.input2_multiplier,
           (int)p.input2_shift, (int)p.output_multiplier, (int)p.output_shift, (int)p.act_min,
           (int)p.act_max, (int)p.rounding);
  tfv::bcast::ShapeParams(ctx, p.shape, c.in_place, quant);
  return tfv::bcast::RunAndCompare(ctx, c, p, ref);
}

}  // namespace

TFV_FAMILY_TEST(add, tfv::bcast::kEdgeCases, tfv::bcast::EdgeKindName) {
  return AddOrSub(ctx, &s8_add__ref);
}

TFV_FAMILY_TEST(sub, tfv::bcast::kEdgeCases, tfv::bcast::EdgeKindName) {
  return AddOrSub(ctx, &s8_sub__ref);
}

TFV_FAMILY_TEST(squared_difference, tfv::bcast::kEdgeCases, tfv::bcast::EdgeKindName) {
  return AddOrSub(ctx, &s8_squared_difference__ref);
}
