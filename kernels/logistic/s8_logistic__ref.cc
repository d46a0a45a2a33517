// Portable reference LOGISTIC (the oracle for every other logistic variant).
#include "kernels/common/fixed_point.h"
#include "kernels/common/fixed_point_math.h"
#include "kernels/logistic/logistic.h"

namespace fx = tinyforge::fx;

extern "C" void s8_logistic__ref(const s8_logistic_params* params, const int8_t* input,
                                 int8_t* output) {
  const s8_logistic_params& p = *params;
  constexpr int kInputIntegerBits = 4;
  constexpr int kOutputIntegerBits = 8;  // Q0.31 -> 1/256 steps
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
      const int32_t s_q0 = fx::Logistic<kInputIntegerBits>(x_q4);
      y = fx::Clamp(fx::RoundingDivideByPOT(s_q0, 31 - kOutputIntegerBits) - 128, -128, 127);
    }
    output[i] = static_cast<int8_t>(y);
  }
}
