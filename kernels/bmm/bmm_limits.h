// BATCH_MATMUL parameter ranges (kernels/common/limits.h): s8_bmm_check, used by the
// compiler (compiler/quant) and the runtime validator (runtime/ops/bmm.cc).
#ifndef TINYFORGE_KERNELS_BMM_BMM_LIMITS_H_
#define TINYFORGE_KERNELS_BMM_BMM_LIMITS_H_

#include "kernels/bmm/bmm.h"
#include "kernels/common/limits.h"

// Largest depth: keeps |sum (lhs + offset) * (rhs + offset)| (each product at most 255 * 255)
// inside int32, so every variant's sum is the exact one.
#define TF_LIMIT_BMM_DEPTH 32768

inline const char* s8_bmm_check(const s8_bmm_params& p) {
  TF_CHECK_ROUNDING(p);
  TF_CHECK_DIM(p, batches);
  TF_CHECK_DIM(p, rows);
  TF_CHECK_RANGE(p, depth, 1, TF_LIMIT_BMM_DEPTH);
  TF_CHECK_DIM(p, cols);
  TF_CHECK_DIM(p, lhs_batches);
  TF_CHECK_DIM(p, rhs_batches);
  TF_CHECK_THAT(p.batches % p.lhs_batches == 0, "lhs_batches does not divide batches");
  TF_CHECK_THAT(p.batches % p.rhs_batches == 0, "rhs_batches does not divide batches");
  TF_CHECK_RANGE(p, lhs_transposed, 0, 1);
  TF_CHECK_RANGE(p, rhs_transposed, 0, 1);
  TF_CHECK_RANGE(p, lhs_offset, -127, 128);
  TF_CHECK_RANGE(p, rhs_offset, -127, 128);
  TF_CHECK_INT8(p, output_offset);
  TF_CHECK_RANGE(p, multiplier, 0, 2147483647);
  TF_CHECK_SHIFT(p, shift);
  TF_CHECK_CLAMP(p);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_BMM_BMM_LIMITS_H_
