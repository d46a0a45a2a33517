// Portable reference float32 arg max / arg min along the middle axis of [outer, axis, inner]:
// the first extreme value; the first NaN wins over every number (torch.argmax / argmin).
#include "kernels/f32/f32.h"

extern "C" void f32_argmax__ref(const f32_argmax_params* params, const float* x, int32_t* y) {
  const f32_argmax_params& p = *params;
  for (int32_t o = 0; o < p.outer; ++o) {
    for (int32_t i = 0; i < p.inner; ++i) {
      const float* in = x + o * p.axis_size * p.inner + i;
      int32_t best = 0;
      for (int32_t a = 1; a < p.axis_size && in[best * p.inner] == in[best * p.inner]; ++a) {
        const float v = in[a * p.inner], b = in[best * p.inner];
        if (v != v || (p.is_min ? v < b : v > b)) best = a;
      }
      y[o * p.inner + i] = best;
    }
  }
}
