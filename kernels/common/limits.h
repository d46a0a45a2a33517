// Parameter limits: the one definition of the ranges both the compiler (compiler/quant,
// after building a kernel's parameters) and the runtime validator (runtime/ops
// Validate_<op>, before running a program) enforce. Each family has a <family>_limits.h
// with `s8_<family>_check(params)`, built from these macros: nullptr when the parameters
// are in range, else a static string naming the field and its range ("in_h not in [1,
// 16777216]"). Freestanding C++17, no allocation; tests/runtime/validator_test.cc checks
// every bound (one past rejected, at the limit accepted).
#ifndef TINYFORGE_KERNELS_COMMON_LIMITS_H_
#define TINYFORGE_KERNELS_COMMON_LIMITS_H_

#include <cstdint>

#include "kernels/common/rounding.h"

// Largest geometry value (a dimension, a pad): keeps every index expression of the kernels
// (int32) and every size computation of the validator (int64) far from overflow.
#define TF_LIMIT_DIM 16777216
// Largest byte count / element count of a tensor (int32).
#define TF_LIMIT_BYTES 2147483647
// Largest stride, dilation and window padding.
#define TF_LIMIT_STRIDE 65536
// Requantization shifts (multiplier * 2^(shift - 31)).
#define TF_LIMIT_SHIFT_MIN (-31)
#define TF_LIMIT_SHIFT_MAX 30

#define TF_LIMIT_STR2(x) #x
#define TF_LIMIT_STR(x) TF_LIMIT_STR2(x)

inline constexpr bool tf_in_range(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

// Returns "<field> not in [lo, hi]" from the enclosing check when p.field is out of range.
#define TF_CHECK_RANGE(p, field, lo, hi)                                              \
  do {                                                                               \
    if (!tf_in_range((p).field, (lo), (hi))) {                                       \
      return #field " not in [" TF_LIMIT_STR(lo) ", " TF_LIMIT_STR(hi) "]";          \
    }                                                                                \
  } while (0)
// A geometry dimension: [1, TF_LIMIT_DIM].
#define TF_CHECK_DIM(p, field) TF_CHECK_RANGE(p, field, 1, TF_LIMIT_DIM)
// An int8 zero point / output offset: [-128, 127].
#define TF_CHECK_INT8(p, field) TF_CHECK_RANGE(p, field, -128, 127)
// A requantization shift: [-31, 30].
#define TF_CHECK_SHIFT(p, field) TF_CHECK_RANGE(p, field, TF_LIMIT_SHIFT_MIN, TF_LIMIT_SHIFT_MAX)
// The rounding mode (kernels/common/rounding.h).
#define TF_CHECK_ROUNDING(p) TF_CHECK_RANGE(p, rounding, TF_ROUNDING_DOUBLE, TF_ROUNDING_SINGLE)
// The output clamp: -128 <= act_min <= act_max <= 127.
#define TF_CHECK_CLAMP(p)                                                             \
  do {                                                                               \
    TF_CHECK_INT8(p, act_min);                                                       \
    if (!tf_in_range((p).act_max, (p).act_min, 127)) return "act_max not in [act_min, 127]"; \
  } while (0)
// Returns `why` from the enclosing check when `cond` is false.
#define TF_CHECK_THAT(cond, why) \
  do {                           \
    if (!(cond)) return why;     \
  } while (0)

#endif  // TINYFORGE_KERNELS_COMMON_LIMITS_H_
