// LUT parameter ranges (kernels/common/limits.h): s8_lut_check, used by the compiler
// (compiler/quant) and the runtime validator (runtime/ops/lut.cc).
#ifndef TINYFORGE_KERNELS_LUT_LUT_LIMITS_H_
#define TINYFORGE_KERNELS_LUT_LUT_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/lut/lut.h"

inline const char* s8_lut_check(const s8_lut_params& p) {
  TF_CHECK_RANGE(p, size, 1, TF_LIMIT_BYTES);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_LUT_LUT_LIMITS_H_
