// Float parameter ranges (kernels/common/limits.h): f32_<op>_check for each op kind of the
// f32 family, used by the compiler (compiler/quant) and the runtime
// validator (runtime/ops/f32_*.cc).
#ifndef TINYFORGE_KERNELS_F32_F32_LIMITS_H_
#define TINYFORGE_KERNELS_F32_F32_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/common/window_limits.h"
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
  if (const char* why = tf_conv_geometry_check(p)) return why;
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
  return tf_pool_geometry_check(p);
}

// The rest of a float model (f32_reduce, f32_softmax, f32_layernorm, f32_bmm, f32_argmax).
#define TF_F32_CHECK_ROWS(p, a, b, c)                                               \
  TF_CHECK_RANGE(p, a, 1, TF_LIMIT_F32_ELEMENTS);                                   \
  TF_CHECK_RANGE(p, b, 1, TF_LIMIT_F32_ELEMENTS);                                   \
  TF_CHECK_RANGE(p, c, 1, TF_LIMIT_F32_ELEMENTS);                                   \
  TF_CHECK_THAT(int64_t{p.a} * p.b * p.c <= TF_LIMIT_F32_ELEMENTS,                  \
                #a " * " #b " * " #c " must be at most 536870911")

inline const char* f32_reduce_check(const f32_reduce_params& p) {
  TF_F32_CHECK_ROWS(p, outer, length, inner);
  TF_CHECK_RANGE(p, op, 0, 2);
  return nullptr;
}

inline const char* f32_softmax_check(const f32_softmax_params& p) {
  TF_F32_CHECK_ROWS(p, outer, length, inner);
  return nullptr;
}

inline const char* f32_layernorm_check(const f32_layernorm_params& p) {
  TF_CHECK_RANGE(p, rows, 1, TF_LIMIT_F32_ELEMENTS);
  TF_CHECK_RANGE(p, depth, 1, TF_LIMIT_F32_ELEMENTS);
  TF_CHECK_THAT(int64_t{p.rows} * p.depth <= TF_LIMIT_F32_ELEMENTS,
                "rows * depth must be at most 536870911");
  TF_CHECK_THAT(p.eps >= 0.0f && p.eps <= 3.4028234663852886e38f, "eps must be finite and >= 0");
  TF_CHECK_RANGE(p, rms, 0, 1);
  return nullptr;
}

inline const char* f32_bmm_check(const f32_bmm_params& p) {
  TF_CHECK_RANGE(p, batches, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, rows, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, depth, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, cols, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, a_broadcast, 0, 1);
  TF_CHECK_RANGE(p, b_broadcast, 0, 1);
  TF_CHECK_THAT(int64_t{p.batches} * p.rows * p.depth <= TF_LIMIT_F32_ELEMENTS &&
                    int64_t{p.batches} * p.depth * p.cols <= TF_LIMIT_F32_ELEMENTS &&
                    int64_t{p.batches} * p.rows * p.cols <= TF_LIMIT_F32_ELEMENTS,
                "each matrix batch must hold at most 536870911 elements");
  return nullptr;
}

inline const char* f32_argmax_check(const f32_argmax_params& p) {
  TF_F32_CHECK_ROWS(p, outer, axis_size, inner);
  TF_CHECK_RANGE(p, is_min, 0, 1);
  return nullptr;
}

inline const char* f32_resize_check(const f32_resize_params& p) {
  TF_CHECK_RANGE(p, batches, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, input_h, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, input_w, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, channels, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, output_h, 1, TF_LIMIT_DIM);
  TF_CHECK_RANGE(p, output_w, 1, TF_LIMIT_DIM);
  return nullptr;
}

// The coordinate table (f32_resize_table_entries(p) entries): indices inside the input,
// weights the bits of a float32 in [0, 1].
inline const char* f32_resize_check_table(const f32_resize_params& p, const int32_t* t) {
  for (int64_t i = 0; i < f32_resize_table_entries(p); i += 3) {
    const int32_t in = i < 3 * int64_t{p.output_h} ? p.input_h : p.input_w;
    TF_CHECK_THAT(t[i] >= 0 && t[i] < in && t[i + 1] >= 0 && t[i + 1] < in,
                  "table index outside the input");
    const uint32_t w = static_cast<uint32_t>(t[i + 2]);
    TF_CHECK_THAT(w <= 0x3f800000u, "table weight not a float32 in [0, 1]");
  }
  return nullptr;
}

#undef TF_F32_CHECK_ROWS

#endif  // TINYFORGE_KERNELS_F32_F32_LIMITS_H_
