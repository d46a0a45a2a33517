// RESIZE parameter ranges (kernels/common/limits.h): s8_resize_check on the parameters and
// s8_resize_check_table on the coordinate table, used by the compiler (compiler/quant) and
// the runtime validator (runtime/ops/resize.cc; it also checks the tensor sizes).
#ifndef TINYFORGE_KERNELS_RESIZE_RESIZE_LIMITS_H_
#define TINYFORGE_KERNELS_RESIZE_RESIZE_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/resize/resize.h"

inline const char* s8_resize_check(const s8_resize_params& p) {
  TF_CHECK_DIM(p, batches);
  TF_CHECK_DIM(p, input_h);
  TF_CHECK_DIM(p, input_w);
  TF_CHECK_DIM(p, channels);
  TF_CHECK_DIM(p, output_h);
  TF_CHECK_DIM(p, output_w);
  TF_CHECK_RANGE(p, bilinear, 0, 1);
  return nullptr;
}

// Every source index inside the input and every weight in [0, TF_RESIZE_ONE] (the kernels
// read no further and their int32 sums cannot overflow). O(output_h + output_w).
inline const char* s8_resize_check_table(const s8_resize_params& p, const int32_t* table) {
  for (int32_t i = 0; i < p.output_h + p.output_w; ++i) {
    const int32_t* e = table + 3 * i;
    const int32_t n = i < p.output_h ? p.input_h : p.input_w;
    if (e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n) {
      return "table: source index outside the input";
    }
    if (e[2] < 0 || e[2] > TF_RESIZE_ONE) return "table: weight not in [0, 1024]";
  }
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_RESIZE_RESIZE_LIMITS_H_
