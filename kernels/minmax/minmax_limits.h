// MAXIMUM / MINIMUM parameter ranges: only the broadcast shape, which the runtime validator
// checks against the tensors (runtime/ops/binary_common.h).
#ifndef TINYFORGE_KERNELS_MINMAX_MINMAX_LIMITS_H_
#define TINYFORGE_KERNELS_MINMAX_MINMAX_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/minmax/minmax.h"

inline const char* s8_minmax_check(const s8_minmax_params&) { return nullptr; }

#endif  // TINYFORGE_KERNELS_MINMAX_MINMAX_LIMITS_H_
