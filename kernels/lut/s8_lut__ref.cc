// Portable reference LUT (the oracle for every other lut variant).
#include "kernels/lut/lut.h"

extern "C" void s8_lut__ref(const s8_lut_params* params, const int8_t* input,
                            const int8_t* table, int8_t* output) {
  for (int32_t i = 0; i < params->size; ++i) {
    output[i] = table[static_cast<uint8_t>(input[i])];
  }
}
