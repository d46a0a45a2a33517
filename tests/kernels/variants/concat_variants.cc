// concat family (kernels/concat): every variant vs s8_concat__ref. Edge cases: inputs of
// exactly as many elements as the fast variants' table threshold and one fewer (the two
// requantize paths), a single outer row, one input, all copies, all requantized.
#include "kernels/concat/concat_rows.h"
#include "tests/kernels/variants/variant_harness.h"

namespace {

constexpr int32_t kMaxInputs = 6;
enum EdgeKind { kAtThreshold, kBelowThreshold, kOneRow, kOneInput, kAllCopies, kAllRequantized,
                kNumEdgeKinds };
constexpr int32_t kPerKind = 4;
constexpr int32_t kEdgeCases = kNumEdgeKinds * kPerKind;
const char* const kKindNames[kNumEdgeKinds] = {"at_threshold", "below_threshold", "one_row",
                                               "one_input", "all_copies", "all_requantized"};
const char* EdgeKindName(int32_t e) { return kKindNames[e / kPerKind]; }

}  // namespace

TFV_FAMILY_TEST(concat, kEdgeCases, EdgeKindName) {
  tfv::Rng& rng = ctx.rng;
  const int32_t kind = ctx.Edge() ? ctx.EdgeIndex() / kPerKind : -1;
  s8_concat_params p{};
  p.outer = kind == kOneRow ? 1 : (rng.Chance(70) ? rng.Range(1, 8) : rng.Range(1, 64));
  p.num_inputs = kind == kOneInput ? 1 : rng.Range(1, kMaxInputs);
  p.output_zero_point = rng.Range(-128, 127);
  p.rounding = rng.Range(0, 1);
  s8_concat_input* spec = ctx.Alloc<s8_concat_input>(p.num_inputs);
  const int8_t* ins[kMaxInputs] = {};
  if (spec == nullptr) return false;
  int32_t row = 0;
  for (int32_t k = 0; k < p.num_inputs; ++k) {
    s8_concat_input& in = spec[k];
    in.axis_inner = rng.Chance(60) ? rng.Range(1, 40) : rng.Range(1, 700);
    if (p.outer * in.axis_inner > 1024) in.axis_inner = 1024 / p.outer;  // the arena's size
    if (kind == kAtThreshold || kind == kBelowThreshold) {
      // outer * axis_inner == the threshold (or one below) where the threshold divides
      p.outer = 1;
      in.axis_inner = tinyforge::kernels::kConcatTableMinElements - (kind == kBelowThreshold);
    }
    in.requantize = kind == kAllCopies ? 0 : (kind >= kAtThreshold && kind != kOneRow &&
                                                  kind != kOneInput) ? 1 : rng.Range(0, 1);
    in.input_zero_point = rng.Range(-128, 127);
    tfv::RandomMultiplier(rng, &in.multiplier, &in.shift);
    int8_t* x = ctx.Alloc<int8_t>(p.outer * in.axis_inner);
    if (x == nullptr) return false;
    rng.Fill(x, p.outer * in.axis_inner);
    ins[k] = x;
    row += in.axis_inner;
  }
  p.inputs = spec;
  const int32_t n = p.outer * row;
  int8_t* want = ctx.Output(n);
  int8_t* got = ctx.Output(n);
  if (want == nullptr || got == nullptr) return false;
  ctx.Params("outer %d inputs %d row %d out_zp %d rounding %d first: inner %d requantize %d",
             (int)p.outer, (int)p.num_inputs, (int)row, (int)p.output_zero_point,
             (int)p.rounding, (int)spec[0].axis_inner, (int)spec[0].requantize);
  s8_concat__ref(&p, ins, want);
  ctx.Variant (&s8_concat__ref)(&p, ins, got);
  return tfv::Compare(ctx, "output", got, want, n);
}
