// One requantization stage of ADD (input rescale or output) as constants for the high-word
// forms of s8_add__dsp (SMMUL / SMMULR) and s8_add__scalar (32x32->64 multiply); internal
// header. The forms and why they are exact: s8_add__dsp.cc's header comment.
#ifndef TINYFORGE_KERNELS_ADD_ADD_STAGE_H_
#define TINYFORGE_KERNELS_ADD_ADD_STAGE_H_

#include <cstdint>

namespace tinyforge::add_stage {

struct Stage {
  int32_t mult;
  int32_t pre;    // left shift of the operand before the high multiply (1 or 2)
  int32_t mask;   // double rounding: -1 when n > 0 (ties away from zero), else 0
  int32_t round;  // 2^(n-1) or 0
  int32_t n;      // right shift
};

// mult: Q31 multiplier; shift <= 0.
template <bool kSingle>
inline Stage MakeStage(int32_t mult, int32_t shift) {
  Stage s;
  s.mult = mult;
  const int32_t n = -shift;
  if (kSingle) {
    s.pre = n == 0 ? 2 : 1;
    s.n = n == 0 ? 1 : n;
    s.round = static_cast<int32_t>(int64_t{1} << (s.n - 1));
    s.mask = 0;
  } else {
    s.pre = 1;
    s.n = n;
    s.round = n > 0 ? static_cast<int32_t>(int64_t{1} << (n - 1)) : 0;
    s.mask = n > 0 ? -1 : 0;
  }
  return s;
}

}  // namespace tinyforge::add_stage

#endif  // TINYFORGE_KERNELS_ADD_ADD_STAGE_H_
