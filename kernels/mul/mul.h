// MUL of two int8 tensors, NumPy broadcasting.
// Numerics: TFLite Micro reference_integer_ops::Mul / BroadcastMul4DSlow (here up to 6-D):
//   y = MBQM((x1 + input1_offset) * (x2 + input2_offset), output_multiplier, output_shift)
//       + output_offset, clamped to [act_min, act_max]
// with s1 * s2 / s_out = output_multiplier * 2^(output_shift - 31), computed in double.
#ifndef TINYFORGE_KERNELS_MUL_MUL_H_
#define TINYFORGE_KERNELS_MUL_MUL_H_

#include <cstdint>

#include "kernels/common/rounding.h"

#include "kernels/common/broadcast.h"

struct s8_mul_params {
  s8_broadcast_shape shape;
  int32_t input1_offset;                    // -zero point of input 1, in [-127, 128]
  int32_t input2_offset;                    // -zero point of input 2, in [-127, 128]
  int32_t output_multiplier, output_shift;  // Q31, shift in [-31, 30]
  int32_t output_offset;                    // output zero point, in [-128, 127]
  int32_t act_min, act_max;                 // output clamp, -128 <= act_min <= act_max <= 127
  // Requantization rounding: TF_ROUNDING_DOUBLE (0, TFLite Micro) or TF_ROUNDING_SINGLE (1),
  // kernels/common/rounding.h. Zero-initialized structs get TFLM's double rounding.
  int32_t rounding;
};

// PRELU with a slope operand broadcast against the input (a slope per channel).
// Numerics: TFLite Micro reference_ops::BroadcastPrelu4DSlow (here up to 6-D):
//   x' = x + input_offset
//   y  = x' >= 0 ? MBQM(x', output_multiplier_1, output_shift_1)
//                : MBQM(x' * (alpha + alpha_offset), output_multiplier_2, output_shift_2)
//   y += output_offset, clamped to [-128, 127]
// with s_in / s_out and s_in * s_alpha / s_out as the two multipliers (double, as TFLM).
// input1 is x, input2 the slopes; input1 and output may alias exactly when not broadcast.
struct s8_prelu_params {
  s8_broadcast_shape shape;
  int32_t input_offset;                         // -zero point of x, in [-128, 128]
  int32_t alpha_offset;                         // -zero point of the slopes, in [-128, 128]
  int32_t output_multiplier_1, output_shift_1;  // x >= 0: Q31, shift in [-31, 30]
  int32_t output_multiplier_2, output_shift_2;  // x < 0: Q31, shift in [-31, 30]
  int32_t output_offset;                        // output zero point, in [-128, 127]
  int32_t rounding;                             // as s8_mul_params
};

extern "C" {
// input1, input2 and output may alias exactly (in-place) when not broadcast.
void s8_mul__ref(const s8_mul_params* params, const int8_t* input1, const int8_t* input2,
                 int8_t* output);
// Cortex-M0/M3 (no SIMD; also the host): kernels/mul/mul_rows.h.
void s8_mul__scalar(const s8_mul_params* params, const int8_t* input1, const int8_t* input2,
                    int8_t* output);
// Cortex-M4/M7/M33 (DSP).
void s8_mul__dsp(const s8_mul_params* params, const int8_t* input1, const int8_t* input2,
                 int8_t* output);
// Cortex-M55 (Helium): tables for scalar and per-channel operands, 4 lanes otherwise.
void s8_mul__mve(const s8_mul_params* params, const int8_t* input1, const int8_t* input2,
                 int8_t* output);
void s8_prelu__ref(const s8_prelu_params* params, const int8_t* input, const int8_t* alpha,
                   int8_t* output);
// Cortex-M4/M7/M33 (DSP): single rounding, rows read densely, SMMLA + SSAT per element;
// other calls as __ref. In place as __ref.
void s8_prelu__dsp(const s8_prelu_params* params, const int8_t* input, const int8_t* alpha,
                   int8_t* output);
// Cortex-M55 (Helium): rows read densely (the input, and the slopes per channel or one),
// 4 lanes at a time; other calls as __ref. In place as __ref.
void s8_prelu__mve(const s8_prelu_params* params, const int8_t* input, const int8_t* alpha,
                   int8_t* output);
}

#endif  // TINYFORGE_KERNELS_MUL_MUL_H_
