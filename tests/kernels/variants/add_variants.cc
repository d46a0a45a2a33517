// add family (kernels/add): every add, sub and squared_difference variant vs its reference
// (the same parameters and cases; squared_difference with its own shift ranges). Shapes: bcast_cases.h.
#include <cstdio>

#include "kernels/add/add_linear.h"
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

// ADD / SUB cases with the compiler's linear form (lin_*): about 1 random case in 12 and a
// third of the edge cases (each kind, both passes). The output scale is moved so the larger
// real input-to-output ratio lies in [1/4, 2) (TFLite's adds: the output range covers the
// inputs'), then the compiler's own search (kernels/add/add_linear.h) fills the form when it
// proves it exact; the variants must then match __ref through it.
bool LinearCase(tfv::Context& ctx) {
  return ctx.Edge() ? (ctx.EdgeIndex() / tfv::bcast::kNumKinds) % 3 == 0 : ctx.rng.Chance(8);
}

template <bool kSub>
void WithLinearForm(s8_add_params* p) {
  static int8_t table[65536];
  const double a1 = static_cast<double>(p->input1_multiplier) * (1 << p->left_shift) /
                    2147483648.0 / static_cast<double>(int64_t{1} << -p->input1_shift);
  const double a2 = static_cast<double>(p->input2_multiplier) * (1 << p->left_shift) /
                    2147483648.0 / static_cast<double>(int64_t{1} << -p->input2_shift);
  double big = (a1 > a2 ? a1 : a2) * p->output_multiplier / 2147483648.0 /
               static_cast<double>(int64_t{1} << -p->output_shift);
  while (big >= 2 && p->output_shift > -31) --p->output_shift, big /= 2;
  while (big < 0.25 && p->output_shift < 0) ++p->output_shift, big *= 2;
  tinyforge::add_linear::FindLinear<kSub>(p, table);
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
  } else if (LinearCase(ctx)) {
    if (ref == &s8_sub__ref) {
      WithLinearForm<true>(&p);
    } else {
      WithLinearForm<false>(&p);
    }
  }
  char quant[260];
  snprintf(quant, sizeof quant,
           "off %d,%d,%d ls %d m1 %d s1 %d m2 %d s2 %d mo %d so %d act [%d,%d] rounding %d "
           "lin %d,%d,%d >> %d",
           (int)p.input1_offset, (int)p.input2_offset, (int)p.output_offset, (int)p.left_shift,
           (int)p.input1_multiplier, (int)p.input1_shift, (int)p.input2_multiplier,
           (int)p.input2_shift, (int)p.output_multiplier, (int)p.output_shift, (int)p.act_min,
           (int)p.act_max, (int)p.rounding, (int)p.lin_alpha, (int)p.lin_beta,
           (int)p.lin_gamma, (int)p.lin_shift);
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
