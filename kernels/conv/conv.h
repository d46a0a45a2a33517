// CONV_2D, int8 activations and weights, int32 bias, per-output-channel requantization.
// Numerics: TFLite Micro reference_integer_ops::ConvPerChannel (double rounding).
//
// Layouts (all dense, C order, no padding between rows):
//   input   [batches, in_h, in_w, in_c]             NHWC, int8
//   weights [out_c, k_h, k_w, in_c / groups]        OHWI, int8, symmetric (zero point 0)
//   bias    [out_c]                                 int32, scale in_scale * w_scale[oc];
//                                                   may be null (treated as zeros)
//   output  [batches, out_h, out_w, out_c]          NHWC, int8
//
// Output (oy, ox) reads input rows oy * stride_h - pad_top + ky * dilation_h (same for x);
// taps outside the input are skipped, which equals padding the input with its zero
// point. Bottom/right padding is implied by out_h/out_w, so asymmetric padding (TFLite
// SAME with odd total padding) is expressed by pad_top/pad_left = floor(total / 2).
//
// Grouped convolution: groups = in_c / filter_in_c; output channel oc belongs to group
// oc / (out_c / groups). Ordinary convolution has filter_in_c == in_c.
//
// Every variant of this family (see conv.inc) takes exactly these parameters and must
// produce bit-identical output to s8_conv__ref.
#ifndef TINYFORGE_KERNELS_CONV_CONV_H_
#define TINYFORGE_KERNELS_CONV_CONV_H_

#include <cstdint>

struct s8_conv_params {
  // Geometry. All > 0. in_c % filter_in_c == 0, out_c % (in_c / filter_in_c) == 0.
  int32_t batches;
  int32_t in_h, in_w, in_c;
  int32_t out_h, out_w, out_c;
  int32_t k_h, k_w, filter_in_c;
  int32_t stride_h, stride_w;      // >= 1
  int32_t dilation_h, dilation_w;  // >= 1
  int32_t pad_top, pad_left;       // >= 0, input pixels
  // Quantization.
  int32_t input_offset;   // -input zero point, in [-127, 128]
  int32_t output_offset;  // output zero point, in [-128, 127]
  // Per output channel: real scale in_scale * w_scale[oc] / out_scale encoded as
  // multiplier[oc] * 2^(shift[oc] - 31); multiplier in [2^30, 2^31) or 0, shift in
  // [-31, 30]. Arrays of out_c entries, owned by the caller (flash).
  const int32_t* multiplier;
  const int32_t* shift;
  // Fused activation as an output clamp, -128 <= act_min <= act_max <= 127.
  int32_t act_min, act_max;
};

extern "C" {
// scratch: unused by __ref (may be null); faster variants state their need in conv.inc.
void s8_conv__ref(const s8_conv_params* params, const int8_t* input, const int8_t* weights,
                  const int32_t* bias, int8_t* output, void* scratch);
}

#endif  // TINYFORGE_KERNELS_CONV_CONV_H_
