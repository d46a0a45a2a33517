// The per-output step every mean variant shares with s8_mean__ref: the int32 sum of
// reduce_size inputs, less the zero point once per input, requantized (TFLite's
// QuantizedMeanOrSum), offset and clamped.
#ifndef TINYFORGE_KERNELS_MEAN_MEAN_OUT_H_
#define TINYFORGE_KERNELS_MEAN_MEAN_OUT_H_

#include "kernels/common/fixed_point.h"
#include "kernels/mean/mean.h"

namespace tinyforge::mean {

// input_zero_point * reduce_size as TFLite subtracts it (64-bit product, narrowed).
inline int32_t ZeroPointSum(const s8_mean_params& p) {
  return static_cast<int32_t>(static_cast<int64_t>(p.input_zero_point) *
                              static_cast<int64_t>(p.reduce_size));
}

inline int8_t Out(const s8_mean_params& p, int32_t sum, int32_t zero_point_sum) {
  const int32_t y = fx::Requantize(fx::WrapSub(sum, zero_point_sum), p.multiplier, p.shift,
                                   p.rounding) +
                    p.output_zero_point;
  return static_cast<int8_t>(fx::Clamp(y, -128, 127));
}

// Four adjacent outputs (a block of four columns).
inline void Out4(const s8_mean_params& p, int32_t a0, int32_t a1, int32_t a2, int32_t a3,
                 int32_t zero_point_sum, int8_t* out) {
  out[0] = Out(p, a0, zero_point_sum);
  out[1] = Out(p, a1, zero_point_sum);
  out[2] = Out(p, a2, zero_point_sum);
  out[3] = Out(p, a3, zero_point_sum);
}

}  // namespace tinyforge::mean

#endif  // TINYFORGE_KERNELS_MEAN_MEAN_OUT_H_
