// CONCATENATION parameter ranges (kernels/common/limits.h): s8_concat_check (the fixed
// part) and s8_concat_input_check (each input's descriptor), used by the compiler
// (compiler/quant) and the runtime validator (runtime/ops/concat.cc).
#ifndef TINYFORGE_KERNELS_CONCAT_CONCAT_LIMITS_H_
#define TINYFORGE_KERNELS_CONCAT_CONCAT_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/concat/concat.h"

// Most inputs one CONCATENATION takes (the runtime rebuilds them on its stack).
#define TF_LIMIT_CONCAT_INPUTS 16

inline const char* s8_concat_check(const s8_concat_params& p) {
  TF_CHECK_ROUNDING(p);
  TF_CHECK_RANGE(p, num_inputs, 1, TF_LIMIT_CONCAT_INPUTS);
  TF_CHECK_DIM(p, outer);
  TF_CHECK_INT8(p, output_zero_point);
  return nullptr;
}

inline const char* s8_concat_input_check(const s8_concat_input& in) {
  TF_CHECK_DIM(in, axis_inner);
  TF_CHECK_RANGE(in, requantize, 0, 1);
  TF_CHECK_INT8(in, input_zero_point);
  TF_CHECK_SHIFT(in, shift);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_CONCAT_CONCAT_LIMITS_H_
