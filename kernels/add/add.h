// ADD, SUB and SQUARED_DIFFERENCE of two int8 tensors with different scales and zero points,
// NumPy broadcasting (one parameter struct: SUB and SQUARED_DIFFERENCE rescale their inputs
// exactly as ADD does).
// Numerics: TFLite Micro reference_integer_ops::Add / BroadcastAdd6DSlow (AddFunc):
//   a = (x1 + input1_offset) << left_shift      b = (x2 + input2_offset) << left_shift
//   a = MBQM_SmallerThanOne(a, input1_multiplier, input1_shift)   (same for b)
//   y = MBQM_SmallerThanOne(a + b, output_multiplier, output_shift) + output_offset
//   y = clamp(y, act_min, act_max)
// where MBQM_SmallerThanOne(x, m, s) = RoundingDivideByPOT(SRDHM(x, m), -s), s <= 0.
// SUB (TFLite Micro reference_ops::Sub / SubElementwise): a - b in place of a + b, same
// parameters. SQUARED_DIFFERENCE (TFLite Micro squared_difference.cc): left_shift 7,
//   d = a - b;  y = MBQM(d * d, output_multiplier, output_shift) + output_offset
// with the full MultiplyByQuantizedMultiplier (output_shift may be > 0), real output
// multiplier twice_max^2 / (2^(2 * left_shift) * s_out) (compiler/quant
// MakeSquaredDifferenceParams).
// With twice_max = 2 * max(s1, s2), the real multipliers are s1 / twice_max,
// s2 / twice_max and twice_max / (2^left_shift * s_out) (compiler/quant MakeAddParams).
#ifndef TINYFORGE_KERNELS_ADD_ADD_H_
#define TINYFORGE_KERNELS_ADD_ADD_H_

#include <cstdint>

#include "kernels/common/rounding.h"

#include "kernels/common/broadcast.h"

struct s8_add_params {
  s8_broadcast_shape shape;
  int32_t input1_offset;                    // -zero point of input 1, in [-127, 128]
  int32_t input2_offset;                    // -zero point of input 2, in [-127, 128]
  int32_t left_shift;                       // 20 for int8 (headroom for the rescaled inputs)
  int32_t input1_multiplier, input1_shift;  // Q31, shift in [-31, 0]
  int32_t input2_multiplier, input2_shift;  // Q31, shift in [-31, 0]
  int32_t output_multiplier, output_shift;  // Q31, shift in [-31, 0]
  int32_t output_offset;                    // output zero point, in [-128, 127]
  int32_t act_min, act_max;                 // output clamp, -128 <= act_min <= act_max <= 127
  // Requantization rounding: TF_ROUNDING_DOUBLE (0, TFLite Micro) or TF_ROUNDING_SINGLE (1),
  // kernels/common/rounding.h. Zero-initialized structs get TFLM's double rounding.
  int32_t rounding;
  // ADD / SUB only: a linear form the compiler proved equal to the output above for all
  // 65,536 input pairs (kernels/add/add_linear.h), or lin_shift 0 (none; __ref never uses it):
  //   y = clamp((x1 * lin_alpha + x2 * lin_beta + lin_gamma) >> lin_shift, act_min, act_max)
  // with |lin_alpha|, |lin_beta| < 2^22, |lin_gamma| < 2^30 (the sum fits int32), shift
  // in [1, 24]. SQUARED_DIFFERENCE: all four 0.
  int32_t lin_alpha, lin_beta, lin_gamma, lin_shift;
};

extern "C" {
// input1, input2 and output may alias exactly (in-place) when not broadcast.
void s8_add__ref(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                 int8_t* output);
// Cortex-M0/M3 (no SIMD; also the host).
void s8_add__scalar(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                    int8_t* output);
// Cortex-M4/M7/M33 (DSP).
void s8_add__dsp(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                 int8_t* output);
// Cortex-M55 (Helium).
void s8_add__mve(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                 int8_t* output);

// SUB: input1 - input2; same variants and aliasing rules as ADD.
void s8_sub__ref(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                 int8_t* output);
void s8_sub__scalar(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                    int8_t* output);
void s8_sub__dsp(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                 int8_t* output);
void s8_sub__mve(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                 int8_t* output);

// SQUARED_DIFFERENCE: (input1 - input2)^2 (TFLite's int8 algorithm above).
void s8_squared_difference__ref(const s8_add_params* params, const int8_t* input1,
                                const int8_t* input2, int8_t* output);
// Every core: lookup tables of the rescaled inputs for long outputs.
void s8_squared_difference__scalar(const s8_add_params* params, const int8_t* input1,
                                   const int8_t* input2, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_ADD_ADD_H_
