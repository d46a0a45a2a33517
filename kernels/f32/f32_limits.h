// Float fallback parameter ranges (kernels/common/limits.h): f32_unary_check,
// f32_binary_check, f32_cumsum_check, used by the compiler (compiler/quant) and the runtime
// validator (runtime/ops/f32_*.cc).
#ifndef TINYFORGE_KERNELS_F32_F32_LIMITS_H_
#define TINYFORGE_KERNELS_F32_F32_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/f32/f32.h"

// The arity of function code `fn`, 0 for no function.
inline constexpr int32_t f32_fn_arity(int32_t fn) {
  int32_t k = 0;
#define TF_F32_FN(Enum, name, arity) \
  if (fn == k) return arity;         \
  ++k;
#include "kernels/f32/f32_fns.def"
  return 0;
}

// A float32 tensor: element count * 4 bytes fit int32.
#define TF_LIMIT_F32_ELEMENTS 536870911

inline const char* f32_unary_check(const f32_unary_params& p) {
  TF_CHECK_RANGE(p, size, 1, TF_LIMIT_F32_ELEMENTS);
  TF_CHECK_THAT(f32_fn_arity(p.fn) == 1, "fn must be a function of one input (f32_fns.def)");
  return nullptr;
}

inline const char* f32_binary_check(const f32_binary_params& p) {
  TF_CHECK_THAT(f32_fn_arity(p.fn) == 2, "fn must be a function of two inputs (f32_fns.def)");
  return nullptr;
}

inline const char* f32_cumsum_check(const f32_cumsum_params& p) {
  TF_CHECK_RANGE(p, outer, 1, TF_LIMIT_F32_ELEMENTS);
  TF_CHECK_RANGE(p, length, 1, TF_LIMIT_F32_ELEMENTS);
  TF_CHECK_RANGE(p, inner, 1, TF_LIMIT_F32_ELEMENTS);
  TF_CHECK_THAT(int64_t{p.outer} * p.length * p.inner <= TF_LIMIT_F32_ELEMENTS,
                "outer * length * inner must be at most 536870911");
  return nullptr;
}

// Float model layers (f32_conv, f32_dwconv, f32_fc, f32_avgpool, f32_maxpool).
inline const char* f32_conv_check(const f32_conv_params& p) {
  TF_CHECK_RANGE(p, batches, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, in_h, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, in_w, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, in_c, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, out_h, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, out_w, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, out_c, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, k_h, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, k_w, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, stride_h, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, stride_w, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, dilation_h, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, dilation_w, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, pad_top, 0, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, pad_left, 0, TF_LIMIT_DIM);
  TF_CHECK_THAT(p.act_min <= p.act_max, "act_min must be at most act_max");
  return nullptr;
}

inline const char* f32_dwconv_check(const f32_conv_params& p) {
  if (const char* why = f32_conv_check(p)) return why;
  TF_CHECK_THAT(p.out_c % p.in_c == 0, "out_c must be a multiple of in_c");
  return nullptr;
}

inline const char* f32_fc_check(const f32_fc_params& p) {
  TF_CHECK_RANGE(p, batches, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, in_features, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, out_features, 1, TF_LIMIT_DIM);
  TF_CHECK_THAT(p.act_min <= p.act_max, "act_min must be at most act_max");
  return nullptr;
}

inline const char* f32_pool_check(const f32_pool_params& p) {
  TF_CHECK_RANGE(p, batches, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, in_h, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, in_w, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, channels, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, out_h, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, out_w, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, filter_h, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, filter_w, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, stride_h, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, stride_w, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, pad_top, 0, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, pad_left, 0, TF_LIMIT_DIM);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_F32_F32_LIMITS_H_
