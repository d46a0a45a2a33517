// AVERAGE_POOL_2D / MAX_POOL_2D parameter ranges (kernels/common/limits.h): s8_pool_check,
// used by the compiler (compiler/quant) and the runtime validator (runtime/ops/pool_common.h).
#ifndef TINYFORGE_KERNELS_POOL_POOL_LIMITS_H_
#define TINYFORGE_KERNELS_POOL_POOL_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/common/window_limits.h"
#include "kernels/pool/pool.h"

inline const char* s8_pool_check(const s8_pool_params& p) {
  if (const char* why = tf_pool_geometry_check(p)) return why;
  TF_CHECK_CLAMP(p);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_POOL_POOL_LIMITS_H_
