// ADD / SUB, SQUARED_DIFFERENCE, MUL and MAXIMUM / MINIMUM parameter builders (NumPy
// broadcasting).
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/add/add_linear.h"

#include "quant/kernel_params.h"
#include "quant/params_check.h"

namespace tinyforge::quant {

using detail::CheckPositive;
using detail::CheckQuant;

Expected<s8_broadcast_shape> MakeBroadcastShape(std::span<const int32_t> dims1,
                                                std::span<const int32_t> dims2) {
  constexpr int kMax = kS8BroadcastMaxDims;
  const int rank = static_cast<int>(std::max(dims1.size(), dims2.size()));
  if (rank > kMax) {
    return Error{"broadcast: rank " + std::to_string(rank) + " exceeds " + std::to_string(kMax)};
  }
  // Right-align both shapes into kMax dims, padding with leading 1s.
  int32_t a[kMax], b[kMax];
  for (int i = 0; i < kMax; ++i) {
    const int ia = i - (kMax - static_cast<int>(dims1.size()));
    const int ib = i - (kMax - static_cast<int>(dims2.size()));
    a[i] = ia >= 0 ? dims1[ia] : 1;
    b[i] = ib >= 0 ? dims2[ib] : 1;
    TF_QUANT_TRY_CHECK(CheckPositive("broadcast", "dims", a[i]));
    TF_QUANT_TRY_CHECK(CheckPositive("broadcast", "dims", b[i]));
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1) {
      return Error{"broadcast: shapes are not broadcastable (" + std::to_string(a[i]) + " vs " +
                   std::to_string(b[i]) + ")"};
    }
  }
  s8_broadcast_shape s{};
  int64_t stride_a = 1, stride_b = 1;
  for (int i = kMax - 1; i >= 0; --i) {
    s.out_dims[i] = std::max(a[i], b[i]);
    s.in1_strides[i] = a[i] == 1 ? 0 : static_cast<int32_t>(stride_a);
    s.in2_strides[i] = b[i] == 1 ? 0 : static_cast<int32_t>(stride_b);
    stride_a *= a[i];
    stride_b *= b[i];
  }
  if (stride_a > INT32_MAX || stride_b > INT32_MAX) return Error{"broadcast: tensor too large"};
  return s;
}

Expected<s8_add_params> MakeAddParams(std::span<const int32_t> dims1,
                                      std::span<const int32_t> dims2, TensorQuant input1,
                                      TensorQuant input2, TensorQuant output,
                                      Activation activation) {
  constexpr const char* kOp = "add";
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input1", input1));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input2", input2));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  auto shape = MakeBroadcastShape(dims1, dims2);
  if (!shape) return shape.error().WithPrefix(kOp);
  auto range = ActivationRangeInt8(activation, output.scale, output.zero_point);
  if (!range) return range.error().WithPrefix(kOp);

  s8_add_params p{};
  p.shape = *shape;
  p.input1_offset = -input1.zero_point;
  p.input2_offset = -input2.zero_point;
  p.output_offset = output.zero_point;
  p.left_shift = 20;
  // CalculateOpDataAdd: std::max on the float scales, then everything in double.
  const double twice_max_input_scale =
      2 * static_cast<double>(std::max(input1.scale, input2.scale));
  const double real1 = static_cast<double>(input1.scale) / twice_max_input_scale;
  const double real2 = static_cast<double>(input2.scale) / twice_max_input_scale;
  const double real_out =
      twice_max_input_scale / ((1 << p.left_shift) * static_cast<double>(output.scale));
  auto m1 = QuantizeMultiplierSmallerThanOneExp(real1);
  auto m2 = QuantizeMultiplierSmallerThanOneExp(real2);
  auto mo = QuantizeMultiplierSmallerThanOneExp(real_out);
  if (!m1) return Error{"add: input1 multiplier: " + m1.error().message()};
  if (!m2) return Error{"add: input2 multiplier: " + m2.error().message()};
  if (!mo) return Error{"add: output multiplier (output scale too small): " + mo.error().message()};
  p.input1_multiplier = m1->multiplier, p.input1_shift = m1->shift;
  p.input2_multiplier = m2->multiplier, p.input2_shift = m2->shift;
  p.output_multiplier = mo->multiplier, p.output_shift = mo->shift;
  p.act_min = range->min, p.act_max = range->max;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_add_check(p)));
  return p;
}

bool FindAddLinearForm(s8_add_params* p, bool sub) {
  std::vector<int8_t> table(65536);
  return sub ? add_linear::FindLinear<true>(p, table.data())
             : add_linear::FindLinear<false>(p, table.data());
}

Expected<s8_mul_params> MakeMulParams(std::span<const int32_t> dims1,
                                      std::span<const int32_t> dims2, TensorQuant input1,
                                      TensorQuant input2, TensorQuant output,
                                      Activation activation) {
  constexpr const char* kOp = "mul";
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input1", input1));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input2", input2));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  auto shape = MakeBroadcastShape(dims1, dims2);
  if (!shape) return shape.error().WithPrefix(kOp);
  auto range = ActivationRangeInt8(activation, output.scale, output.zero_point);
  if (!range) return range.error().WithPrefix(kOp);

  s8_mul_params p{};
  p.shape = *shape;
  p.input1_offset = -input1.zero_point;
  p.input2_offset = -input2.zero_point;
  p.output_offset = output.zero_point;
  // CalculateOpDataMul: all three scales widened to double first.
  const QuantizedMultiplier m =
      QuantizeMultiplier(static_cast<double>(input1.scale) * static_cast<double>(input2.scale) /
                         static_cast<double>(output.scale));
  p.output_multiplier = m.multiplier, p.output_shift = m.shift;
  p.act_min = range->min, p.act_max = range->max;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_mul_check(p)));
  return p;
}

Expected<s8_prelu_params> MakePreluParams(std::span<const int32_t> x_dims,
                                          std::span<const int32_t> alpha_dims,
                                          TensorQuant input, TensorQuant alpha,
                                          TensorQuant output) {
  constexpr const char* kOp = "prelu";
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "alpha", alpha));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  auto shape = MakeBroadcastShape(x_dims, alpha_dims);
  if (!shape) return shape.error().WithPrefix(kOp);
  s8_prelu_params p{};
  p.shape = *shape;
  p.input_offset = -input.zero_point;
  p.alpha_offset = -alpha.zero_point;
  p.output_offset = output.zero_point;
  const double in = static_cast<double>(input.scale), out = static_cast<double>(output.scale);
  const QuantizedMultiplier m1 = QuantizeMultiplier(in / out);
  const QuantizedMultiplier m2 = QuantizeMultiplier(in * static_cast<double>(alpha.scale) / out);
  p.output_multiplier_1 = m1.multiplier, p.output_shift_1 = m1.shift;
  p.output_multiplier_2 = m2.multiplier, p.output_shift_2 = m2.shift;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_prelu_check(p)));
  return p;
}

Expected<s8_add_params> MakeSquaredDifferenceParams(std::span<const int32_t> dims1,
                                                    std::span<const int32_t> dims2,
                                                    TensorQuant input1, TensorQuant input2,
                                                    TensorQuant output) {
  constexpr const char* kOp = "squared_difference";
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input1", input1));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input2", input2));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  auto shape = MakeBroadcastShape(dims1, dims2);
  if (!shape) return shape.error().WithPrefix(kOp);
  s8_add_params p{};
  p.shape = *shape;
  p.input1_offset = -input1.zero_point;
  p.input2_offset = -input2.zero_point;
  p.output_offset = output.zero_point;
  p.left_shift = 7;
  const double twice_max =
      2.0 * static_cast<double>(std::max(input1.scale, input2.scale));
  auto m1 = QuantizeMultiplierSmallerThanOneExp(static_cast<double>(input1.scale) / twice_max);
  auto m2 = QuantizeMultiplierSmallerThanOneExp(static_cast<double>(input2.scale) / twice_max);
  if (!m1) return Error{"squared_difference: input1 multiplier: " + m1.error().message()};
  if (!m2) return Error{"squared_difference: input2 multiplier: " + m2.error().message()};
  // TFLM computes (1 << 14) * s_out as a float product, then widens it to double.
  const float denom = static_cast<float>(1 << (2 * p.left_shift)) * output.scale;
  const QuantizedMultiplier mo = QuantizeMultiplier(twice_max * twice_max / static_cast<double>(denom));
  p.input1_multiplier = m1->multiplier, p.input1_shift = m1->shift;
  p.input2_multiplier = m2->multiplier, p.input2_shift = m2->shift;
  p.output_multiplier = mo.multiplier, p.output_shift = mo.shift;
  p.act_min = -128, p.act_max = 127;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_squared_difference_check(p)));
  return p;
}

Expected<s8_minmax_params> MakeMinMaxParams(std::span<const int32_t> dims1,
                                            std::span<const int32_t> dims2) {
  auto shape = MakeBroadcastShape(dims1, dims2);
  if (!shape) return shape.error().WithPrefix("maximum/minimum");
  s8_minmax_params p{};
  p.shape = *shape;
  return p;
}

}  // namespace tinyforge::quant
