// AVERAGE_POOL_2D / MAX_POOL_2D parameter ranges (kernels/common/limits.h): s8_pool_check,
// used by the compiler (compiler/quant) and the runtime validator (runtime/ops/pool_common.h).
#ifndef TINYFORGE_KERNELS_POOL_POOL_LIMITS_H_
#define TINYFORGE_KERNELS_POOL_POOL_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/pool/pool.h"

inline const char* s8_pool_check(const s8_pool_params& p) {
  TF_CHECK_DIM(p, batches);
  TF_CHECK_DIM(p, in_h);
  TF_CHECK_DIM(p, in_w);
  TF_CHECK_DIM(p, channels);
  TF_CHECK_DIM(p, out_h);
  TF_CHECK_DIM(p, out_w);
  TF_CHECK_DIM(p, filter_h);
  TF_CHECK_DIM(p, filter_w);
  TF_CHECK_RANGE(p, stride_h, 1, TF_LIMIT_STRIDE);
  TF_CHECK_RANGE(p, stride_w, 1, TF_LIMIT_STRIDE);
  TF_CHECK_RANGE(p, pad_top, 0, TF_LIMIT_STRIDE);
  TF_CHECK_RANGE(p, pad_left, 0, TF_LIMIT_STRIDE);
  TF_CHECK_CLAMP(p);
  TF_CHECK_THAT(int64_t{p.out_h} * p.stride_h + p.filter_h <= TF_LIMIT_BYTES,
                "out_h * stride_h + filter_h exceeds int32");
  TF_CHECK_THAT(int64_t{p.out_w} * p.stride_w + p.filter_w <= TF_LIMIT_BYTES,
                "out_w * stride_w + filter_w exceeds int32");
  // Every window covers at least one input pixel: the average divides by that count.
  // Window starts grow with the output index, so the first and last windows decide.
  TF_CHECK_THAT(p.pad_top < p.filter_h, "pad_top must be < filter_h");
  TF_CHECK_THAT(p.pad_left < p.filter_w, "pad_left must be < filter_w");
  TF_CHECK_THAT(int64_t{p.out_h - 1} * p.stride_h - p.pad_top < p.in_h,
                "the last output row's window lies below the input");
  TF_CHECK_THAT(int64_t{p.out_w - 1} * p.stride_w - p.pad_left < p.in_w,
                "the last output column's window lies right of the input");
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_POOL_POOL_LIMITS_H_
