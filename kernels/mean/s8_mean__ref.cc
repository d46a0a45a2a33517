// Portable reference MEAN (the oracle for every other mean variant).
#include "kernels/common/fixed_point.h"
#include "kernels/mean/mean.h"

namespace fx = tinyforge::fx;

extern "C" void s8_mean__ref(const s8_mean_params* params, const int8_t* input, int8_t* output) {
  const s8_mean_params& p = *params;
  // TFLite subtracts the zero point once from the int32 sum (in 64 bits, then narrowed).
  const int32_t zero_point_sum = static_cast<int32_t>(static_cast<int64_t>(p.input_zero_point) *
                                                      static_cast<int64_t>(p.reduce_size));
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* in_block = input + o * p.reduce_size * p.inner;
    for (int32_t i = 0; i < p.inner; ++i) {
      int32_t sum = 0;
      for (int32_t r = 0; r < p.reduce_size; ++r) sum += in_block[r * p.inner + i];
      const int32_t y = fx::Requantize(fx::WrapSub(sum, zero_point_sum), p.multiplier,
                                                       p.shift, p.rounding) +
                        p.output_zero_point;
      output[o * p.inner + i] = static_cast<int8_t>(fx::Clamp(y, -128, 127));
    }
  }
}
