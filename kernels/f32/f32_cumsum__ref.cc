// Portable reference cumulative sum along one axis, float32 in and out, accumulated in
// double (as PyTorch's CPU kernel: acc_type<float> is double).
#include "kernels/f32/f32.h"

extern "C" void f32_cumsum__ref(const f32_cumsum_params* params, const float* x, float* y) {
  const f32_cumsum_params& p = *params;
  for (int32_t o = 0; o < p.outer; ++o) {
    const int32_t base = o * p.length * p.inner;
    for (int32_t i = 0; i < p.inner; ++i) {
      double acc = 0.0;
      for (int32_t k = 0; k < p.length; ++k) {
        const int32_t at = base + k * p.inner + i;
        acc += static_cast<double>(x[at]);
        y[at] = static_cast<float>(acc);
      }
    }
  }
}
