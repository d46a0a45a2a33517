// PAD parameter ranges (kernels/common/limits.h): s8_pad_check, used by the compiler
// (compiler/quant) and the runtime validator (runtime/ops/pad.cc; it also checks the padded
// sizes against the tensors).
#ifndef TINYFORGE_KERNELS_PAD_PAD_LIMITS_H_
#define TINYFORGE_KERNELS_PAD_PAD_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/pad/pad.h"

inline const char* s8_pad_check(const s8_pad_params& p) {
  for (int i = 0; i < kS8PadMaxDims; ++i) {
    TF_CHECK_DIM(p, input_dims[i]);
    TF_CHECK_RANGE(p, pad_before[i], 0, TF_LIMIT_DIM);
    TF_CHECK_RANGE(p, pad_after[i], 0, TF_LIMIT_DIM);
  }
  TF_CHECK_INT8(p, pad_value);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_PAD_PAD_LIMITS_H_
