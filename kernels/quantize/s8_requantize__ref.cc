// Portable reference QUANTIZE int8 -> int8 (the oracle for every other variant).
#include "kernels/common/fixed_point.h"
#include "kernels/quantize/quantize.h"

namespace fx = tinyforge::fx;

extern "C" void s8_requantize__ref(const s8_requantize_params* params, const int8_t* input,
                                   int8_t* output) {
  const s8_requantize_params& p = *params;
  for (int32_t i = 0; i < p.size; ++i) {
    const int32_t y =
        fx::Requantize(input[i] - p.input_zero_point, p.multiplier, p.shift,
                       p.rounding) +
        p.output_zero_point;
    output[i] = static_cast<int8_t>(fx::Clamp(y, p.act_min, p.act_max));
  }
}
