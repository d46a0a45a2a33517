// DEPTHWISE_CONV_2D parameter ranges (kernels/common/limits.h): s8_dwconv_check, used by the
// compiler (compiler/quant) and the runtime validator (runtime/ops/dwconv.cc).
#ifndef TINYFORGE_KERNELS_DWCONV_DWCONV_LIMITS_H_
#define TINYFORGE_KERNELS_DWCONV_DWCONV_LIMITS_H_

#include "kernels/conv/conv_limits.h"
#include "kernels/dwconv/dwconv.h"

inline const char* s8_dwconv_check(const s8_dwconv_params& p) {
  TF_CHECK_DIM(p, depth_multiplier);
  if (const char* why = s8_conv_window_check(p)) return why;
  TF_CHECK_THAT(int64_t{p.in_c} * p.depth_multiplier == p.out_c,
                "out_c must be in_c * depth_multiplier");
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_DWCONV_DWCONV_LIMITS_H_
