#include "quant/quant_util.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace tinyforge::quant {

float RoundHalfAway(float x) { return std::round(x); }
double RoundHalfAway(double x) { return std::round(x); }

QuantizedMultiplier QuantizeMultiplier(double real_multiplier) {
  if (real_multiplier == 0.0) return {0, 0};
  // A ratio of finite scales can still overflow (a float quotient of a large and a tiny
  // scale: inf): a shift above every kernel's range, which the callers' range checks refuse
  // (converting inf to an integer is undefined behaviour; found by the .tflite fuzzer).
  if (!std::isfinite(real_multiplier)) return {std::numeric_limits<int32_t>::max(), 1024};
  int shift = 0;
  const double q = std::frexp(real_multiplier, &shift);
  auto q_fixed = static_cast<int64_t>(RoundHalfAway(q * static_cast<double>(int64_t{1} << 31)));
  // A mantissa just below 1 can round up to exactly 2^31: renormalize.
  if (q_fixed == (int64_t{1} << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  // Multipliers below 2^-32 would shift every bit out: TFLite flushes them to zero.
  if (shift < -31) {
    shift = 0;
    q_fixed = 0;
  }
  return {static_cast<int32_t>(q_fixed), shift};
}

Expected<QuantizedMultiplier> QuantizeMultiplierSmallerThanOneExp(double real_multiplier) {
  if (!(real_multiplier > 0.0 && real_multiplier < 1.0)) {
    return Error{"multiplier " + std::to_string(real_multiplier) + " is not in (0, 1)"};
  }
  const QuantizedMultiplier m = QuantizeMultiplier(real_multiplier);
  if (m.shift > 0) return Error{"multiplier rounds to 1.0 or more"};
  return m;
}

Expected<QuantizedMultiplier> QuantizeMultiplierGreaterThanOne(double real_multiplier) {
  if (!(real_multiplier > 1.0)) {
    return Error{"multiplier " + std::to_string(real_multiplier) + " is not greater than 1"};
  }
  return QuantizeMultiplier(real_multiplier);
}

int32_t CalculateInputRadius(int input_integer_bits, int input_left_shift, int total_signed_bits) {
  // TFLite divides by (1LL << input_left_shift); ldexp is the same for shifts >= 0 and
  // stays defined for negative ones.
  const double max_input_rescaled =
      std::ldexp(1.0 * ((1 << input_integer_bits) - 1) *
                     static_cast<double>(int64_t{1} << (total_signed_bits - input_integer_bits)),
                 -input_left_shift);
  return static_cast<int32_t>(std::floor(max_input_rescaled));
}

Expected<ActivationRange> ActivationRangeInt8(Activation activation, float output_scale,
                                              int32_t output_zero_point) {
  if (!(output_scale > 0.0f)) return Error{"activation range: output scale must be > 0"};
  ActivationRange range;  // {-128, 127}
  // TFLite's Quantize() helper in kernel_util.cc: all in float.
  auto quantize = [&](float f) -> Expected<int32_t> {
    const float tmp = RoundHalfAway(f / output_scale);
    if (!(tmp >= static_cast<float>(std::numeric_limits<int32_t>::min()) &&
          tmp <= static_cast<float>(std::numeric_limits<int32_t>::max()))) {
      return Error{"activation range: bound overflows int32 for output scale " +
                   std::to_string(output_scale)};
    }
    return output_zero_point + static_cast<int32_t>(tmp);
  };
  float lo = 0.0f, hi = 0.0f;
  bool has_hi = false;
  switch (activation) {
    case Activation::kNone:
      return range;
    case Activation::kRelu:
      lo = 0.0f;
      break;
    case Activation::kRelu6:
      lo = 0.0f, hi = 6.0f, has_hi = true;
      break;
    case Activation::kReluN1To1:
      lo = -1.0f, hi = 1.0f, has_hi = true;
      break;
  }
  auto q_lo = quantize(lo);
  if (!q_lo) return q_lo.error();
  range.min = std::max(range.min, *q_lo);
  if (has_hi) {
    auto q_hi = quantize(hi);
    if (!q_hi) return q_hi.error();
    range.max = std::min(range.max, *q_hi);
  }
  return range;
}

}  // namespace tinyforge::quant
