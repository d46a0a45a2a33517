// MUL parameter ranges (kernels/common/limits.h): s8_mul_check, used by the compiler
// (compiler/quant) and the runtime validator (runtime/ops/mul.cc).
#ifndef TINYFORGE_KERNELS_MUL_MUL_LIMITS_H_
#define TINYFORGE_KERNELS_MUL_MUL_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/mul/mul.h"

inline const char* s8_mul_check(const s8_mul_params& p) {
  TF_CHECK_ROUNDING(p);
  TF_CHECK_RANGE(p, input1_offset, -128, 128);
  TF_CHECK_RANGE(p, input2_offset, -128, 128);
  TF_CHECK_SHIFT(p, output_shift);
  TF_CHECK_INT8(p, output_offset);
  TF_CHECK_CLAMP(p);
  return nullptr;
}

inline const char* s8_prelu_check(const s8_prelu_params& p) {
  TF_CHECK_ROUNDING(p);
  TF_CHECK_RANGE(p, input_offset, -128, 128);
  TF_CHECK_RANGE(p, alpha_offset, -128, 128);
  TF_CHECK_SHIFT(p, output_shift_1);
  TF_CHECK_SHIFT(p, output_shift_2);
  TF_CHECK_INT8(p, output_offset);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_MUL_MUL_LIMITS_H_
