// Portable reference GATHER (the oracle for every other gather variant).
#include "kernels/gather/gather.h"

extern "C" void s8_gather__ref(const s8_gather_params* params, const int8_t* input,
                               const int32_t* indices, int8_t* output) {
  const s8_gather_params& p = *params;
  for (int32_t o = 0; o < p.outer; ++o) {
    for (int32_t c = 0; c < p.count; ++c) {
      const int32_t k = indices[c] < 0 ? indices[c] + p.axis_size : indices[c];
      const int8_t* row = input + (o * p.axis_size + k) * p.inner;
      int8_t* dst = output + (o * p.count + c) * p.inner;
      for (int32_t i = 0; i < p.inner; ++i) dst[i] = row[i];
    }
  }
}
