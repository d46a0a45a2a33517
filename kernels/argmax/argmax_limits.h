// ARG_MAX parameter ranges (kernels/common/limits.h): s8_argmax_check, used by the compiler
// (compiler/quant) and the runtime validator (runtime/ops/argmax.cc; it also checks the
// element counts against the tensors).
#ifndef TINYFORGE_KERNELS_ARGMAX_ARGMAX_LIMITS_H_
#define TINYFORGE_KERNELS_ARGMAX_ARGMAX_LIMITS_H_

#include "kernels/argmax/argmax.h"
#include "kernels/common/limits.h"

inline const char* s8_argmax_check(const s8_argmax_params& p) {
  TF_CHECK_DIM(p, outer);
  TF_CHECK_DIM(p, axis_size);
  TF_CHECK_DIM(p, inner);
  TF_CHECK_RANGE(p, is_min, 0, 1);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_ARGMAX_ARGMAX_LIMITS_H_
