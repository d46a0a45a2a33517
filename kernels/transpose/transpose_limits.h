// TRANSPOSE parameter ranges (kernels/common/limits.h): s8_transpose_check, used by the
// compiler (compiler/quant) and the runtime validator (runtime/ops/transpose.cc; it also
// checks the element count against the tensors).
#ifndef TINYFORGE_KERNELS_TRANSPOSE_TRANSPOSE_LIMITS_H_
#define TINYFORGE_KERNELS_TRANSPOSE_TRANSPOSE_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/transpose/transpose.h"

inline const char* s8_transpose_check(const s8_transpose_params& p) {
  uint32_t seen = 0;
  for (int i = 0; i < kS8TransposeMaxDims; ++i) {
    TF_CHECK_DIM(p, input_dims[i]);
    TF_CHECK_RANGE(p, perm[i], 0, 5);
    seen |= 1u << p.perm[i];
  }
  if (seen != (1u << kS8TransposeMaxDims) - 1) return "perm: not a permutation";
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_TRANSPOSE_TRANSPOSE_LIMITS_H_
