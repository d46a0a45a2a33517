// Portable reference TANH (the oracle for every other tanh variant).
#include "kernels/common/fixed_point.h"
#include "kernels/common/fixed_point_math.h"
#include "kernels/tanh/tanh.h"

namespace fx = tinyforge::fx;

extern "C" void s8_tanh__ref(const s8_tanh_params* params, const int8_t* input, int8_t* output) {
  const s8_tanh_params& p = *params;
  constexpr int kInputIntegerBits = 4;
  constexpr int kOutputFractionalBits = 7;  // Q0.31 -> 1/128 steps
  for (int32_t i = 0; i < p.size; ++i) {
    const int32_t d = input[i] - p.input_zero_point;
    int32_t y;
    if (d <= -p.input_range_radius) {
      y = -128;
    } else if (d >= p.input_range_radius) {
      y = 127;
    } else {
      const int32_t x_q4 =
          fx::MultiplyByQuantizedMultiplier(d, p.input_multiplier, p.input_left_shift);
      const int32_t t_q0 = fx::Tanh<kInputIntegerBits>(x_q4);
      y = fx::Clamp(fx::RoundingDivideByPOT(t_q0, 31 - kOutputFractionalBits), -128, 127);
    }
    output[i] = static_cast<int8_t>(y);
  }
}
