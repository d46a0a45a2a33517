// Portable reference PRELU (the oracle for any other prelu variant).
#include "kernels/common/broadcast.h"
#include "kernels/common/fixed_point.h"
#include "kernels/mul/mul.h"

namespace fx = tinyforge::fx;

extern "C" void s8_prelu__ref(const s8_prelu_params* params, const int8_t* input,
                              const int8_t* alpha, int8_t* output) {
  const s8_prelu_params& p = *params;
  tinyforge::kernels::ForEachBroadcast(p.shape, [&](int32_t i1, int32_t i2, int32_t o) {
    const int32_t x = p.input_offset + input[i1];
    int32_t y;
    if (x >= 0) {
      y = fx::Requantize(x, p.output_multiplier_1, p.output_shift_1, p.rounding);
    } else {
      const int32_t a = p.alpha_offset + alpha[i2];
      y = fx::Requantize(x * a, p.output_multiplier_2, p.output_shift_2, p.rounding);
    }
    output[o] = static_cast<int8_t>(fx::Clamp(y + p.output_offset, -128, 127));
  });
}
