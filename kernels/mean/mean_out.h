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

}  // namespace tinyforge::mean

#endif  // TINYFORGE_KERNELS_MEAN_MEAN_OUT_H_
