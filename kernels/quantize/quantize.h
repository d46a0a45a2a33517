// QUANTIZE (float -> int8 and int8 -> int8 "requantize") and DEQUANTIZE (int8 -> float),
// as TFLite Micro's reference QUANTIZE / DEQUANTIZE kernels compute them:
//   s8_quantize:   y = clamp(round_half_away(x / scale) + zero_point, -128, 127)
//                  with x / scale a float division (reference_ops::AffineQuantize);
//                  NaN maps to zero_point, +-inf and huge values saturate (TFLite leaves
//                  those undefined).
//   s8_requantize: y = clamp(MBQM(x - input_zero_point, multiplier, shift)
//                            + output_zero_point, act_min, act_max)
//                  QUANTIZE int8->int8 (reference_ops::Requantize) with the full int8 range;
//                  standalone RELU (ReluQuantized) with act_min = output zero point; RELU6
//                  (Relu6Quantized: no rescale) as the identity (multiplier 2^30, shift 1,
//                  zero points 0) clamped to [input zp, quantized 6].
//   s8_dequantize: y = scale * (x - zero_point) as float (reference_ops::Dequantize; the
//                  float product equals TFLite's double product rounded to float).
// Elementwise over `size` elements; input and output may alias when element sizes match.
#ifndef TINYFORGE_KERNELS_QUANTIZE_QUANTIZE_H_
#define TINYFORGE_KERNELS_QUANTIZE_QUANTIZE_H_

#include <cstdint>

#include "kernels/common/rounding.h"

struct s8_quantize_params {
  int32_t size;        // >= 0
  float scale;         // output scale, > 0 (the tensor's float32 scale)
  int32_t zero_point;  // output zero point, in [-128, 127]
};

struct s8_requantize_params {
  int32_t size;               // >= 0
  int32_t input_zero_point;   // in [-128, 127]
  int32_t output_zero_point;  // in [-128, 127]
  int32_t multiplier, shift;  // in_scale / out_scale, Q31, shift in [-31, 30]
  int32_t act_min, act_max;   // output clamp, -128 <= act_min <= act_max <= 127
  // Requantization rounding: TF_ROUNDING_DOUBLE (0, TFLite Micro) or TF_ROUNDING_SINGLE (1),
  // kernels/common/rounding.h. Zero-initialized structs get TFLM's double rounding.
  int32_t rounding;
};

struct s8_dequantize_params {
  int32_t size;        // >= 0
  float scale;         // input scale, > 0
  int32_t zero_point;  // input zero point, in [-128, 127]
};

extern "C" {
void s8_quantize__ref(const s8_quantize_params* params, const float* input, int8_t* output);
void s8_requantize__ref(const s8_requantize_params* params, const int8_t* input, int8_t* output);
void s8_dequantize__ref(const s8_dequantize_params* params, const int8_t* input, float* output);
// Cortex-M4F/M7/M33 (DSP + FPU; __ref without an FPU) and Cortex-M55 (Helium float).
void s8_quantize__dsp(const s8_quantize_params* params, const float* input, int8_t* output);
void s8_quantize__mve(const s8_quantize_params* params, const float* input, int8_t* output);
void s8_dequantize__mve(const s8_dequantize_params* params, const int8_t* input, float* output);
}

#endif  // TINYFORGE_KERNELS_QUANTIZE_QUANTIZE_H_
