// Portable reference DEQUANTIZE int8 -> float (the oracle for every other variant).
#include "kernels/quantize/quantize.h"

extern "C" void s8_dequantize__ref(const s8_dequantize_params* params, const int8_t* input,
                                   float* output) {
  const s8_dequantize_params& p = *params;
  for (int32_t i = 0; i < p.size; ++i) {
    // (x - zp) has at most 9 significant bits, so the float product is the correctly
    // rounded real product, as TFLite's static_cast<float>(double_scale * (x - zp)).
    output[i] = p.scale * static_cast<float>(static_cast<int32_t>(input[i]) - p.zero_point);
  }
}
