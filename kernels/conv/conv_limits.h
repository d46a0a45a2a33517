// CONV_2D parameter ranges (kernels/common/limits.h): s8_conv_check, used by the compiler
// (compiler/quant) and the runtime validator (runtime/ops/conv.cc). The window and
// quantization checks are shared with DEPTHWISE_CONV_2D (dwconv_limits.h).
#ifndef TINYFORGE_KERNELS_CONV_CONV_LIMITS_H_
#define TINYFORGE_KERNELS_CONV_CONV_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/common/window_limits.h"
#include "kernels/conv/conv.h"

// Geometry, window and quantization fields every convolution struct has (P: s8_conv_params,
// s8_dwconv_params); the family's own dims (filter_in_c / depth_multiplier) are checked by
// the caller.
template <class P>
inline const char* s8_conv_window_check(const P& p) {
  TF_CHECK_ROUNDING(p);
  if (const char* why = tf_conv_geometry_check(p)) return why;
  TF_CHECK_RANGE(p, input_offset, -127, 128);
  TF_CHECK_INT8(p, output_offset);
  TF_CHECK_CLAMP(p);
  return nullptr;
}

inline const char* s8_conv_check(const s8_conv_params& p) {
  TF_CHECK_DIM(p, filter_in_c);
  if (const char* why = s8_conv_window_check(p)) return why;
  TF_CHECK_THAT(p.in_c % p.filter_in_c == 0 && p.out_c % (p.in_c / p.filter_in_c) == 0,
                "groups (in_c / filter_in_c) must divide in_c and out_c");
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_CONV_CONV_LIMITS_H_
