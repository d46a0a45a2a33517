// SOFTMAX parameter ranges (kernels/common/limits.h): s8_softmax_check, used by the
// compiler (compiler/quant) and the runtime validator (runtime/ops/softmax.cc).
#ifndef TINYFORGE_KERNELS_SOFTMAX_SOFTMAX_LIMITS_H_
#define TINYFORGE_KERNELS_SOFTMAX_SOFTMAX_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/softmax/softmax.h"

inline const char* s8_softmax_check(const s8_softmax_params& p) {
  TF_CHECK_DIM(p, rows);
  // depth < 2^19: the Q12 sum of at most `depth` exponentials (each <= 1) fits int32.
  TF_CHECK_RANGE(p, depth, 1, 524287);
  TF_CHECK_RANGE(p, input_left_shift, 0, 31);
  TF_CHECK_THAT(p.diff_min <= 0, "diff_min must be <= 0");
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_SOFTMAX_SOFTMAX_LIMITS_H_
