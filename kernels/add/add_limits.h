// ADD / SUB parameter ranges (kernels/common/limits.h): s8_add_check / s8_sub_check, used by the compiler
// (compiler/quant) and the runtime validator (runtime/ops/add.cc). The broadcast shape is
// checked against the tensors by the validator (runtime/ops/binary_common.h).
#ifndef TINYFORGE_KERNELS_ADD_ADD_LIMITS_H_
#define TINYFORGE_KERNELS_ADD_ADD_LIMITS_H_

#include "kernels/add/add.h"
#include "kernels/add/add_linear.h"
#include "kernels/common/limits.h"

inline const char* s8_add_sub_ranges(const s8_add_params& p) {
  TF_CHECK_ROUNDING(p);
  TF_CHECK_RANGE(p, input1_offset, -128, 128);
  TF_CHECK_RANGE(p, input2_offset, -128, 128);
  // left_shift <= 20 keeps (x + offset) << left_shift and the sum of the two rescaled
  // inputs inside int32 (TFLite uses exactly 20 for int8).
  TF_CHECK_RANGE(p, left_shift, 0, 20);
  TF_CHECK_RANGE(p, input1_shift, TF_LIMIT_SHIFT_MIN, 0);
  TF_CHECK_RANGE(p, input2_shift, TF_LIMIT_SHIFT_MIN, 0);
  TF_CHECK_RANGE(p, output_shift, TF_LIMIT_SHIFT_MIN, 0);
  TF_CHECK_INT8(p, output_offset);
  TF_CHECK_CLAMP(p);
  // The linear form (kernels/add/add_linear.h): its sum stays inside int32. Its equality
  // with the op's arithmetic is the compiler's exhaustive check, spot-checked below.
  static_assert(tinyforge::add_linear::kMaxShift == 24 &&
                    tinyforge::add_linear::kMaxCoef == 4194303 &&
                    tinyforge::add_linear::kMaxGamma == 1073741823,
                "the bounds below");
  TF_CHECK_RANGE(p, lin_shift, 0, 24);
  TF_CHECK_RANGE(p, lin_alpha, -4194303, 4194303);
  TF_CHECK_RANGE(p, lin_beta, -4194303, 4194303);
  TF_CHECK_RANGE(p, lin_gamma, -1073741823, 1073741823);
  return nullptr;
}

// ADD / SUB: the ranges above, then the linear form's spot check (add_linear.h).
inline const char* s8_add_check(const s8_add_params& p) {
  if (const char* e = s8_add_sub_ranges(p)) return e;
  if (!tinyforge::add_linear::SpotCheck<false>(p)) return "lin_* differ from the add's arithmetic";
  return nullptr;
}
inline const char* s8_sub_check(const s8_add_params& p) {
  if (const char* e = s8_add_sub_ranges(p)) return e;
  if (!tinyforge::add_linear::SpotCheck<true>(p)) return "lin_* differ from the sub's arithmetic";
  return nullptr;
}

// SQUARED_DIFFERENCE: left_shift <= 7 keeps (a - b)^2 inside int32 (TFLite uses 7 for int8);
// the output multiplier may exceed 1 (a positive output shift).
inline const char* s8_squared_difference_check(const s8_add_params& p) {
  TF_CHECK_ROUNDING(p);
  TF_CHECK_RANGE(p, input1_offset, -128, 128);
  TF_CHECK_RANGE(p, input2_offset, -128, 128);
  TF_CHECK_RANGE(p, left_shift, 0, 7);
  TF_CHECK_RANGE(p, input1_shift, TF_LIMIT_SHIFT_MIN, 0);
  TF_CHECK_RANGE(p, input2_shift, TF_LIMIT_SHIFT_MIN, 0);
  TF_CHECK_SHIFT(p, output_shift);
  TF_CHECK_INT8(p, output_offset);
  TF_CHECK_CLAMP(p);
  TF_CHECK_RANGE(p, lin_shift, 0, 0);  // no linear form
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_ADD_ADD_LIMITS_H_
