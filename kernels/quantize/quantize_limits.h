// QUANTIZE / DEQUANTIZE / requantize parameter ranges (kernels/common/limits.h):
// s8_quantize_check, s8_dequantize_check, s8_requantize_check, used by the compiler
// (compiler/quant) and the runtime validator (runtime/ops/{quantize,dequantize,requantize}.cc).
#ifndef TINYFORGE_KERNELS_QUANTIZE_QUANTIZE_LIMITS_H_
#define TINYFORGE_KERNELS_QUANTIZE_QUANTIZE_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/quantize/quantize.h"

// A float32 tensor of `size` elements: size * 4 bytes fit int32.
#define TF_CHECK_FLOAT_SCALE(p)                                              \
  do {                                                                      \
    TF_CHECK_RANGE(p, size, 1, 536870911);                                  \
    TF_CHECK_THAT((p).scale > 0.0f && (p).scale < 3.4e38f,                  \
                  "scale must be finite and > 0");                          \
    TF_CHECK_INT8(p, zero_point);                                           \
  } while (0)

inline const char* s8_quantize_check(const s8_quantize_params& p) {
  TF_CHECK_FLOAT_SCALE(p);
  return nullptr;
}

inline const char* s8_dequantize_check(const s8_dequantize_params& p) {
  TF_CHECK_FLOAT_SCALE(p);
  return nullptr;
}

inline const char* s8_requantize_check(const s8_requantize_params& p) {
  TF_CHECK_ROUNDING(p);
  TF_CHECK_RANGE(p, size, 1, TF_LIMIT_BYTES);
  TF_CHECK_INT8(p, input_zero_point);
  TF_CHECK_INT8(p, output_zero_point);
  TF_CHECK_SHIFT(p, shift);
  TF_CHECK_CLAMP(p);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_QUANTIZE_QUANTIZE_LIMITS_H_
