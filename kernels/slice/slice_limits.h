// SLICE parameter ranges (kernels/common/limits.h): s8_slice_check, used by the compiler
// (compiler/quant) and the runtime validator (runtime/ops/slice.cc; it also checks the
// element counts against the tensors).
#ifndef TINYFORGE_KERNELS_SLICE_SLICE_LIMITS_H_
#define TINYFORGE_KERNELS_SLICE_SLICE_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/slice/slice.h"

inline const char* s8_slice_check(const s8_slice_params& p) {
  for (int i = 0; i < kS8SliceMaxDims; ++i) {
    TF_CHECK_DIM(p, input_dims[i]);
    TF_CHECK_DIM(p, output_dims[i]);
    TF_CHECK_RANGE(p, begin[i], 0, TF_LIMIT_DIM);
    TF_CHECK_RANGE(p, stride[i], 1, TF_LIMIT_DIM);
    // The last element read lies inside the input (64-bit: no overflow at the limits).
    if (int64_t{p.begin[i]} + int64_t{p.output_dims[i] - 1} * p.stride[i] >= p.input_dims[i]) {
      return "begin, stride: the slice reads past input_dims";
    }
  }
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_SLICE_SLICE_LIMITS_H_
