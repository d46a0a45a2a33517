// Portable reference FULLY_CONNECTED (the oracle for every other fc variant).
#include "kernels/common/fixed_point.h"
#include "kernels/fc/fc.h"

namespace fx = tinyforge::fx;

extern "C" void s8_fc__ref(const s8_fc_params* params, const int8_t* input, const int8_t* weights,
                           const int32_t* bias, int8_t* output, void* /*scratch*/) {
  const s8_fc_params& p = *params;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* in_row = input + b * p.in_features;
    for (int32_t o = 0; o < p.out_features; ++o) {
      const int8_t* w_row = weights + o * p.in_features;
      int32_t acc = 0;
      for (int32_t i = 0; i < p.in_features; ++i) {
        acc = fx::WrapAdd(acc, static_cast<int32_t>(w_row[i]) *
                                   (static_cast<int32_t>(in_row[i]) + p.input_offset));
      }
      if (bias != nullptr) acc = fx::WrapAdd(acc, bias[o]);
      const int32_t q = p.per_channel ? o : 0;
      acc = fx::Requantize(acc, p.multiplier[q], p.shift[q], p.rounding);
      acc = fx::WrapAdd(acc, p.output_offset);
      output[b * p.out_features + o] = static_cast<int8_t>(fx::Clamp(acc, p.act_min, p.act_max));
    }
  }
}
