// DEPTHWISE_CONV_2D, int8 activations and weights, int32 bias, per-output-channel
// requantization. Numerics: TFLite Micro reference_integer_ops::DepthwiseConvPerChannel
// (double rounding).
//
// Layouts (dense, C order):
//   input   [batches, in_h, in_w, in_c]                 NHWC, int8
//   weights [1, k_h, k_w, out_c]                        1HWC, int8, symmetric (zp 0)
//   bias    [out_c]                                     int32; may be null
//   output  [batches, out_h, out_w, out_c]              NHWC, int8
// with out_c = in_c * depth_multiplier; output channel oc = ic * depth_multiplier + m
// reads input channel ic.
//
// Padding, stride and dilation as in conv.h: output (oy, ox) reads input row
// oy * stride_h - pad_top + ky * dilation_h; taps outside the input are skipped.
#ifndef TINYFORGE_KERNELS_DWCONV_DWCONV_H_
#define TINYFORGE_KERNELS_DWCONV_DWCONV_H_

#include <cstdint>

struct s8_dwconv_params {
  // Geometry. All > 0; out_c == in_c * depth_multiplier.
  int32_t batches;
  int32_t in_h, in_w, in_c;
  int32_t out_h, out_w, out_c;
  int32_t depth_multiplier;
  int32_t k_h, k_w;
  int32_t stride_h, stride_w;      // >= 1
  int32_t dilation_h, dilation_w;  // >= 1
  int32_t pad_top, pad_left;       // >= 0
  // Quantization.
  int32_t input_offset;   // -input zero point, in [-127, 128]
  int32_t output_offset;  // output zero point, in [-128, 127]
  // Per output channel, out_c entries each: in_scale * w_scale[oc] / out_scale
  // = multiplier[oc] * 2^(shift[oc] - 31). Owned by the caller.
  const int32_t* multiplier;
  const int32_t* shift;
  int32_t act_min, act_max;  // output clamp, -128 <= act_min <= act_max <= 127
};

extern "C" {
// scratch: unused by __ref (may be null).
void s8_dwconv__ref(const s8_dwconv_params* params, const int8_t* input, const int8_t* weights,
                    const int32_t* bias, int8_t* output, void* scratch);
}

#endif  // TINYFORGE_KERNELS_DWCONV_DWCONV_H_
