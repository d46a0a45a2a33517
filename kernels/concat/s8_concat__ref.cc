// Portable reference CONCATENATION (the oracle for every other concat variant).
#include "kernels/common/fixed_point.h"
#include "kernels/concat/concat.h"

namespace fx = tinyforge::fx;

extern "C" void s8_concat__ref(const s8_concat_params* params, const int8_t* const* inputs,
                               int8_t* output) {
  const s8_concat_params& p = *params;
  int8_t* out = output;
  for (int32_t o = 0; o < p.outer; ++o) {
    for (int32_t k = 0; k < p.num_inputs; ++k) {
      const s8_concat_input& in = p.inputs[k];
      const int8_t* src = inputs[k] + o * in.axis_inner;
      if (in.requantize == 0) {
        for (int32_t i = 0; i < in.axis_inner; ++i) out[i] = src[i];
      } else {
        for (int32_t i = 0; i < in.axis_inner; ++i) {
          const int32_t y = fx::Requantize(src[i] - in.input_zero_point, in.multiplier,
                                                           in.shift, p.rounding) +
                            p.output_zero_point;
          out[i] = static_cast<int8_t>(fx::Clamp(y, -128, 127));
        }
      }
      out += in.axis_inner;
    }
  }
}
