// What the fast QUANTIZE variants share (s8_quantize__dsp / __mve): the quotient x / scale
// from a product, correctly rounded, and the scale range where that is proven.
//
// __ref divides (TFLite's AffineQuantize: val / scale). A division per element is one
// instruction but 14 cycles on a scalar FPU and has no Helium form, so the fast variants
// use r = 1 / scale (once per call) and correct the product with two fused multiply-adds:
//   y0 = RN(x * r),  e = x - y0 * scale (exact, FMA),  y1 = RN(y0 + e * r)
// which is the correctly rounded quotient RN(x / scale) when r = RN(1 / scale) and nothing
// overflows or underflows (Markstein's theorem; Muller et al., Handbook of Floating-Point
// Arithmetic, 4.7). Underflow happens only for |x / scale| far below 0.5, where any value
// rounds to the same integer; overflow (y0 = +-inf, x = +-inf) makes y1 NaN, and y0 is used
// instead. With scale in [2^-100, 2^100] the final int8 equals __ref's for every float
// input (60 million random and half-integer-neighbour cases on the host, and the variant
// tests on the boards); scales outside run __ref.
#ifndef TINYFORGE_KERNELS_QUANTIZE_QUANTIZE_FAST_H_
#define TINYFORGE_KERNELS_QUANTIZE_QUANTIZE_FAST_H_

#include "kernels/quantize/quantize.h"

namespace tinyforge::quantize_fast {

inline bool ScaleInRange(float scale) {
  return scale >= 7.8886090522101181e-31f /* 2^-100 */ &&
         scale <= 1.2676506002282294e30f /* 2^100 */;
}

}  // namespace tinyforge::quantize_fast

#endif  // TINYFORGE_KERNELS_QUANTIZE_QUANTIZE_FAST_H_
