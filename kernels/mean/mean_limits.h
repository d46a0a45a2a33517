// MEAN parameter ranges (kernels/common/limits.h): s8_mean_check, used by the compiler
// (compiler/quant) and the runtime validator (runtime/ops/mean.cc).
#ifndef TINYFORGE_KERNELS_MEAN_MEAN_LIMITS_H_
#define TINYFORGE_KERNELS_MEAN_MEAN_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/mean/mean.h"

inline const char* s8_mean_check(const s8_mean_params& p) {
  TF_CHECK_ROUNDING(p);
  TF_CHECK_DIM(p, outer);
  // reduce_size <= 2^23 keeps the int32 sum of int8 values exact.
  TF_CHECK_RANGE(p, reduce_size, 1, 8388608);
  TF_CHECK_DIM(p, inner);
  TF_CHECK_INT8(p, input_zero_point);
  TF_CHECK_INT8(p, output_zero_point);
  TF_CHECK_SHIFT(p, shift);
  return nullptr;
}

inline const char* s8_reduce_max_check(const s8_reduce_max_params& p) {
  TF_CHECK_DIM(p, outer);
  TF_CHECK_DIM(p, reduce_size);
  TF_CHECK_DIM(p, inner);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_MEAN_MEAN_LIMITS_H_
