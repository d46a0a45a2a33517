// AVERAGE_POOL_2D and MAX_POOL_2D on int8 NHWC tensors.
// Numerics: TFLite Micro reference_integer_ops::AveragePool / MaxPool.
//
// Input and output share scale and zero point (TFLite requires it for int8 pooling), so
// there is no requantization: AVERAGE divides the integer sum of the window by the number
// of window taps that lie inside the input (padding is never counted), rounding half away
// from zero: (sum +- count / 2) / count with C++ truncating division. MAX takes the
// maximum over the same taps. Both then clamp to [act_min, act_max].
//
// Layouts: input [batches, in_h, in_w, channels], output [batches, out_h, out_w, channels].
// Window (oy, ox) covers input rows oy * stride_h - pad_top + [0, filter_h) (same for x).
// Every window must overlap the input by at least one tap (true for TFLite SAME/VALID).
#ifndef TINYFORGE_KERNELS_POOL_POOL_H_
#define TINYFORGE_KERNELS_POOL_POOL_H_

#include <cstdint>

struct s8_pool_params {
  int32_t batches;
  int32_t in_h, in_w, channels;
  int32_t out_h, out_w;
  int32_t filter_h, filter_w;  // >= 1
  int32_t stride_h, stride_w;  // >= 1
  int32_t pad_top, pad_left;   // >= 0
  int32_t act_min, act_max;    // output clamp, -128 <= act_min <= act_max <= 127
};

extern "C" {
void s8_avgpool__ref(const s8_pool_params* params, const int8_t* input, int8_t* output);
void s8_maxpool__ref(const s8_pool_params* params, const int8_t* input, int8_t* output);
// Cortex-M0/M3 (no SIMD; also the host).
void s8_avgpool__scalar(const s8_pool_params* params, const int8_t* input, int8_t* output);
void s8_maxpool__scalar(const s8_pool_params* params, const int8_t* input, int8_t* output);
// Cortex-M4/M7/M33 (DSP).
void s8_avgpool__dsp(const s8_pool_params* params, const int8_t* input, int8_t* output);
void s8_maxpool__dsp(const s8_pool_params* params, const int8_t* input, int8_t* output);
// Cortex-M55 (Helium).
void s8_avgpool__mve(const s8_pool_params* params, const int8_t* input, int8_t* output);
void s8_maxpool__mve(const s8_pool_params* params, const int8_t* input, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_POOL_POOL_H_
