// Portable reference ARG_MAX / ARG_MIN (the oracle for every other argmax variant).
#include "kernels/argmax/argmax.h"

extern "C" void s8_argmax__ref(const s8_argmax_params* params, const int8_t* input,
                               int32_t* output) {
  const s8_argmax_params& p = *params;
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* base = input + o * p.axis_size * p.inner;
    for (int32_t i = 0; i < p.inner; ++i) {
      int32_t best = 0;
      int8_t v = base[i];
      for (int32_t a = 1; a < p.axis_size; ++a) {
        const int8_t c = base[a * p.inner + i];
        if (p.is_min ? c < v : c > v) v = c, best = a;
      }
      output[o * p.inner + i] = best;
    }
  }
}
