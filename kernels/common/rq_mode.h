// The requantization case of a kernel call, chosen once per call from its shifts and rounding
// field, so that the GEMM cores (kernels/common/gemm/) can instantiate a specialized form of
// fx::Requantize for it. One enum for every core; each core maps the cases it does not
// specialize onto a more general form (see each core's dispatch). The values and the two
// forms of ChooseMode are those the cores had (GCC's code for the scalar and DSP cores
// changes with them; benchmarks/kernels/run.py measures any change).
#ifndef TINYFORGE_KERNELS_COMMON_RQ_MODE_H_
#define TINYFORGE_KERNELS_COMMON_RQ_MODE_H_

#include <cstdint>

#include "kernels/common/fixed_point.h"

namespace tinyforge::rq {

enum RqMode : int {
  kRqDouble = 0,        // double rounding (TFLite), any shift
  kRqDoubleNeg = 1,     // double rounding, every shift <= -1
  kRqSingle = 2,        // single rounding, any shift
  kRqSingleNeg = 3,     // single rounding, every shift <= -1
  kRqDoubleNonPos = 4,  // double rounding, every shift <= 0 (some 0)
  // Not a case ChooseMode returns: the per-element scalar form (fx::Requantize, either
  // rounding) a core may run for cases it has no vector form of.
  kRqPerElement = 5,
};

// The narrowest case that holds for n (multiplier, shift) entries. A core without a
// kRqDoubleNonPos form (scalar, DSP) asks with kNonPos = false and gets kRqDouble for it.
template <bool kNonPos = true>
inline int ChooseMode(const int32_t* shift, int32_t n, int32_t rounding) {
  int32_t max_shift = -32;
  for (int32_t i = 0; i < n; ++i) max_shift = shift[i] > max_shift ? shift[i] : max_shift;
  if (rounding == TF_ROUNDING_SINGLE) return max_shift <= -1 ? kRqSingleNeg : kRqSingle;
  if constexpr (kNonPos) {
    if (max_shift <= -1) return kRqDoubleNeg;
    return max_shift <= 0 ? kRqDoubleNonPos : kRqDouble;
  } else {
    return max_shift <= -1 ? kRqDoubleNeg : kRqDouble;
  }
}

}  // namespace tinyforge::rq

#endif  // TINYFORGE_KERNELS_COMMON_RQ_MODE_H_
