// GATHER parameter ranges (kernels/common/limits.h): s8_gather_check, used by the compiler
// (compiler/quant) and the runtime validator (runtime/ops/gather.cc; it also checks the
// element counts against the tensors and the index values).
#ifndef TINYFORGE_KERNELS_GATHER_GATHER_LIMITS_H_
#define TINYFORGE_KERNELS_GATHER_GATHER_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/gather/gather.h"

inline const char* s8_gather_check(const s8_gather_params& p) {
  TF_CHECK_DIM(p, outer);
  TF_CHECK_DIM(p, axis_size);
  TF_CHECK_DIM(p, count);
  TF_CHECK_DIM(p, inner);
  if (p.wrap_negative != 0 && p.wrap_negative != 1) return "wrap_negative must be 0 or 1";
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_GATHER_GATHER_LIMITS_H_
