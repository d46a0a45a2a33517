// TANH, int8 in, int8 out (output scale 1/128, zero point 0).
// Numerics: TFLite Micro reference_integer_ops::Tanh (gemmlowp fixed point, input in
// Q4.27), double rounding:
//   d = x - input_zero_point
//   d <= -input_range_radius -> -128;  d >= input_range_radius -> 127;  otherwise
//   y = clamp(RoundingDivideByPOT(tanh_Q0(MBQM(d, input_multiplier, input_left_shift)), 24),
//             -128, 127)
// Parameters computed exactly as for LOGISTIC (compiler/quant MakeTanhParams).
#ifndef TINYFORGE_KERNELS_TANH_TANH_H_
#define TINYFORGE_KERNELS_TANH_TANH_H_

#include <cstdint>

struct s8_tanh_params {
  int32_t size;                // number of elements, >= 0
  int32_t input_zero_point;    // in [-128, 127]
  int32_t input_range_radius;  // >= 0
  int32_t input_multiplier;    // Q31 mantissa of in_scale * 2^27
  int32_t input_left_shift;    // its exponent
};

extern "C" {
// input and output may alias exactly (in-place).
void s8_tanh__ref(const s8_tanh_params* params, const int8_t* input, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_TANH_TANH_H_
