// LOGISTIC parameter ranges (kernels/common/limits.h): s8_logistic_check, used by the compiler
// (compiler/quant) and the runtime validator (runtime/ops/logistic.cc).
#ifndef TINYFORGE_KERNELS_LOGISTIC_LOGISTIC_LIMITS_H_
#define TINYFORGE_KERNELS_LOGISTIC_LOGISTIC_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/logistic/logistic.h"

inline const char* s8_logistic_check(const s8_logistic_params& p) {
  TF_CHECK_RANGE(p, size, 1, TF_LIMIT_BYTES);
  TF_CHECK_INT8(p, input_zero_point);
  TF_CHECK_RANGE(p, input_range_radius, 0, TF_LIMIT_BYTES);
  TF_CHECK_SHIFT(p, input_left_shift);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_LOGISTIC_LOGISTIC_LIMITS_H_
