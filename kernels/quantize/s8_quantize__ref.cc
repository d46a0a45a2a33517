// Portable reference QUANTIZE float -> int8 (the oracle for every other variant).
#include "kernels/common/fixed_point.h"
#include "kernels/quantize/quantize.h"

namespace {

// round(v) half away from zero, saturated to [-2^31, 2^31 - 1]; NaN -> 0.
// Freestanding (no libm): for |v| < 2^23 the float has a fractional part we inspect
// exactly; at or above 2^23 every float is already an integer.
int32_t RoundHalfAwayToInt32(float v) {
  if (!(v == v)) return 0;  // NaN
  if (v >= 2147483648.0f) return tinyforge::fx::kInt32Max;
  if (v <= -2147483648.0f) return tinyforge::fx::kInt32Min;
  if (v >= 8388608.0f || v <= -8388608.0f) return static_cast<int32_t>(v);
  const int32_t t = static_cast<int32_t>(v);     // truncates toward zero
  const float frac = v - static_cast<float>(t);  // exact for |v| < 2^23
  if (frac >= 0.5f) return t + 1;
  if (frac <= -0.5f) return t - 1;
  return t;
}

}  // namespace

extern "C" void s8_quantize__ref(const s8_quantize_params* params, const float* input,
                                 int8_t* output) {
  const s8_quantize_params& p = *params;
  for (int32_t i = 0; i < p.size; ++i) {
    // Float division, as TFLite's AffineQuantize (val / static_cast<float>(scale)).
    const int32_t q = RoundHalfAwayToInt32(input[i] / p.scale);
    // Saturating add: q may be near INT32_MAX for huge inputs.
    const int64_t y = static_cast<int64_t>(q) + p.zero_point;
    output[i] = static_cast<int8_t>(y < -128 ? -128 : (y > 127 ? 127 : y));
  }
}
