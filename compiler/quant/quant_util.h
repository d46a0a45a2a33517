// Compile-time quantization arithmetic, bit-exact with TensorFlow Lite's
// quantization_util.cc / kernel_util.cc as TFLite Micro uses them (double rounding build).
//
// These are the building blocks; kernel_params.h turns float tensor parameters into the
// kernels' parameter structs with them. Host side, C++20. Errors are tinyforge::Error
// (support/expected.h), one line naming the op and the field.
#ifndef TINYFORGE_COMPILER_QUANT_QUANT_UTIL_H_
#define TINYFORGE_COMPILER_QUANT_QUANT_UTIL_H_

#include <cstdint>

#include "support/expected.h"

namespace tinyforge::quant {

// real = multiplier * 2^(shift - 31); multiplier in [2^30, 2^31) (or 0), shift in [-31, 30]
// for the multipliers that occur in practice.
struct QuantizedMultiplier {
  int32_t multiplier = 0;
  int32_t shift = 0;
  friend bool operator==(const QuantizedMultiplier&, const QuantizedMultiplier&) = default;
};

// tflite::QuantizeMultiplier: frexp, round the mantissa to Q31 (half away from zero),
// fix up a mantissa that rounds to 2^31 (halve it, shift + 1), and flush multipliers below
// 2^-32 (shift < -31) to zero. Never fails; 0 and negative inputs behave as in TFLite
// (0 -> {0, 0}).
QuantizedMultiplier QuantizeMultiplier(double real_multiplier);

// tflite::QuantizeMultiplierSmallerThanOneExp: requires 0 < real < 1 (shift <= 0).
Expected<QuantizedMultiplier> QuantizeMultiplierSmallerThanOneExp(double real_multiplier);

// tflite::QuantizeMultiplierGreaterThanOne: requires real > 1 (shift >= 0).
Expected<QuantizedMultiplier> QuantizeMultiplierGreaterThanOne(double real_multiplier);

// tflite::CalculateInputRadius: the largest |input difference| that does not saturate a
// Q<input_integer_bits> value after a left shift of input_left_shift:
// floor((2^ib - 1) * 2^(total_signed_bits - ib) / 2^input_left_shift).
int32_t CalculateInputRadius(int input_integer_bits, int input_left_shift,
                             int total_signed_bits = 31);

// round(x) half away from zero, as TfLiteRound / std::round (float and double overloads).
float RoundHalfAway(float x);
double RoundHalfAway(double x);

// Fused activation of a TFLite op (TfLiteFusedActivation), or a PyTorch ReLU/ReLU6/clamp
// folded into its producer.
enum class Activation { kNone, kRelu, kReluN1To1, kRelu6 };

struct ActivationRange {
  int32_t min = -128;
  int32_t max = 127;
  friend bool operator==(const ActivationRange&, const ActivationRange&) = default;
};

// tflite::CalculateActivationRangeQuantized for an int8 output. TFLite computes the bounds
// in float: zero_point + (int)round(f / scale) with f and scale float. Fails if that
// overflows int32 (TFLite's check) or if scale <= 0.
Expected<ActivationRange> ActivationRangeInt8(Activation activation, float output_scale,
                                              int32_t output_zero_point);

}  // namespace tinyforge::quant

#endif  // TINYFORGE_COMPILER_QUANT_QUANT_UTIL_H_
