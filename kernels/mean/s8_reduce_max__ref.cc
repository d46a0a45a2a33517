// Portable reference REDUCE_MAX (the oracle for every other reduce_max variant).
#include "kernels/mean/mean.h"

extern "C" void s8_reduce_max__ref(const s8_reduce_max_params* params, const int8_t* input,
                                   int8_t* output) {
  const s8_reduce_max_params& p = *params;
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* in_block = input + o * p.reduce_size * p.inner;
    for (int32_t i = 0; i < p.inner; ++i) {
      int8_t m = -128;
      for (int32_t r = 0; r < p.reduce_size; ++r) {
        const int8_t v = in_block[r * p.inner + i];
        m = v > m ? v : m;
      }
      output[o * p.inner + i] = m;
    }
  }
}
