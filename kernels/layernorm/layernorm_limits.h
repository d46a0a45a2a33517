// LAYER_NORM parameter ranges (kernels/common/limits.h): s8_layernorm_check, used by the
// compiler (compiler/quant) and the runtime validator (runtime/ops/layernorm.cc).
#ifndef TINYFORGE_KERNELS_LAYERNORM_LAYERNORM_LIMITS_H_
#define TINYFORGE_KERNELS_LAYERNORM_LAYERNORM_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/layernorm/layernorm.h"

// depth <= 2^15: sumsq (<= 2^14 * depth) fits int32, depth * sum (q - zp)^2 * 2^16 (< 2^62)
// and eps16 (< 2^62) add up below 2^63, and 255 * depth * 2^lsh fits int32 with lsh >= 8.
#define TF_LIMIT_LAYERNORM_DEPTH 32768

inline const char* s8_layernorm_check(const s8_layernorm_params& p) {
  TF_CHECK_DIM(p, rows);
  TF_CHECK_RANGE(p, depth, 1, TF_LIMIT_LAYERNORM_DEPTH);
  TF_CHECK_RANGE(p, rms, 0, 1);
  TF_CHECK_INT8(p, input_zero_point);
  TF_CHECK_RANGE(p, eps_hi, 0, 1073741823);  // eps16 < 2^62
  TF_CHECK_RANGE(p, scale_exp, -32, 32);
  TF_CHECK_RANGE(p, per_channel, 0, 1);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_LAYERNORM_LAYERNORM_LIMITS_H_
