// The geometry checks of sliding-window ops (kernels/common/limits.h), shared by the int8
// and float32 families: convolutions (s8_conv_params, s8_dwconv_params, f32_conv_params)
// and pools (s8_pool_params, f32_pool_params). Each family adds its own fields (rounding,
// offsets, clamp, channel relations) in its <family>_limits.h. Window positions stay within
// int32 (the kernels compute them in int32).
#ifndef TINYFORGE_KERNELS_COMMON_WINDOW_LIMITS_H_
#define TINYFORGE_KERNELS_COMMON_WINDOW_LIMITS_H_

#include "kernels/common/limits.h"

// Dims, strides, dilations and padding of a convolution struct P (fields batches, in_h/w/c,
// out_h/w/c, k_h/w, stride_h/w, dilation_h/w, pad_top/left).
template <class P>
inline const char* tf_conv_geometry_check(const P& p) {
  TF_CHECK_DIM(p, batches);
  TF_CHECK_DIM(p, in_h);
  TF_CHECK_DIM(p, in_w);
  TF_CHECK_DIM(p, in_c);
  TF_CHECK_DIM(p, out_h);
  TF_CHECK_DIM(p, out_w);
  TF_CHECK_DIM(p, out_c);
  TF_CHECK_DIM(p, k_h);
  TF_CHECK_DIM(p, k_w);
  TF_CHECK_RANGE(p, stride_h, 1, TF_LIMIT_STRIDE);
  TF_CHECK_RANGE(p, stride_w, 1, TF_LIMIT_STRIDE);
  TF_CHECK_RANGE(p, dilation_h, 1, TF_LIMIT_STRIDE);
  TF_CHECK_RANGE(p, dilation_w, 1, TF_LIMIT_STRIDE);
  TF_CHECK_RANGE(p, pad_top, 0, TF_LIMIT_STRIDE);
  TF_CHECK_RANGE(p, pad_left, 0, TF_LIMIT_STRIDE);
  TF_CHECK_THAT(int64_t{p.out_h} * p.stride_h + int64_t{p.k_h} * p.dilation_h <= TF_LIMIT_BYTES,
                "out_h * stride_h + k_h * dilation_h exceeds int32");
  TF_CHECK_THAT(int64_t{p.out_w} * p.stride_w + int64_t{p.k_w} * p.dilation_w <= TF_LIMIT_BYTES,
                "out_w * stride_w + k_w * dilation_w exceeds int32");
  return nullptr;
}

// Dims, strides and padding of a pool struct P (fields batches, in_h/w, channels, out_h/w,
// filter_h/w, stride_h/w, pad_top/left), and every window covering at least one input pixel
// (the average divides by that count; a max over no tap is undefined).
template <class P>
inline const char* tf_pool_geometry_check(const P& p) {
  TF_CHECK_DIM(p, batches);
  TF_CHECK_DIM(p, in_h);
  TF_CHECK_DIM(p, in_w);
  TF_CHECK_DIM(p, channels);
  TF_CHECK_DIM(p, out_h);
  TF_CHECK_DIM(p, out_w);
  TF_CHECK_DIM(p, filter_h);
  TF_CHECK_DIM(p, filter_w);
  TF_CHECK_RANGE(p, stride_h, 1, TF_LIMIT_STRIDE);
  TF_CHECK_RANGE(p, stride_w, 1, TF_LIMIT_STRIDE);
  TF_CHECK_RANGE(p, pad_top, 0, TF_LIMIT_STRIDE);
  TF_CHECK_RANGE(p, pad_left, 0, TF_LIMIT_STRIDE);
  TF_CHECK_THAT(int64_t{p.out_h} * p.stride_h + p.filter_h <= TF_LIMIT_BYTES,
                "out_h * stride_h + filter_h exceeds int32");
  TF_CHECK_THAT(int64_t{p.out_w} * p.stride_w + p.filter_w <= TF_LIMIT_BYTES,
                "out_w * stride_w + filter_w exceeds int32");
  // Window starts grow with the output index, so the first and last windows decide.
  TF_CHECK_THAT(p.pad_top < p.filter_h, "pad_top must be < filter_h");
  TF_CHECK_THAT(p.pad_left < p.filter_w, "pad_left must be < filter_w");
  TF_CHECK_THAT(int64_t{p.out_h - 1} * p.stride_h - p.pad_top < p.in_h,
                "the last output row's window lies below the input");
  TF_CHECK_THAT(int64_t{p.out_w - 1} * p.stride_w - p.pad_left < p.in_w,
                "the last output column's window lies right of the input");
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_COMMON_WINDOW_LIMITS_H_
