// LOGISTIC (sigmoid), int8 in, int8 out (output scale 1/256, zero point -128).
// Numerics: TFLite Micro reference_integer_ops::Logistic (gemmlowp fixed point, input in
// Q4.27), double rounding:
//   d = x - input_zero_point
//   d <= -input_range_radius -> -128;  d >= input_range_radius -> 127;  otherwise
//   y = RoundingDivideByPOT(logistic_Q0(MBQM(d, input_multiplier, input_left_shift)), 23)
//       - 128, clamped to [-128, 127]
// (input_multiplier, input_left_shift) = frexp(in_scale * 2^27) rounded to Q31 and
// input_range_radius = CalculateInputRadius(4, input_left_shift, 31) (compiler/quant).
#ifndef TINYFORGE_KERNELS_LOGISTIC_LOGISTIC_H_
#define TINYFORGE_KERNELS_LOGISTIC_LOGISTIC_H_

#include <cstdint>

struct s8_logistic_params {
  int32_t size;                // number of elements, >= 0
  int32_t input_zero_point;    // in [-128, 127]
  int32_t input_range_radius;  // >= 0
  int32_t input_multiplier;    // Q31 mantissa of in_scale * 2^27 (see above)
  int32_t input_left_shift;    // its exponent
};

extern "C" {
// input and output may alias exactly (in-place).
void s8_logistic__ref(const s8_logistic_params* params, const int8_t* input, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_LOGISTIC_LOGISTIC_H_
