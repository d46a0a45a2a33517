// Portable reference float32 reduction (sum, mean, max) over the middle axis of
// [outer, length, inner]: sum and mean add in element order in the standard mode
// (f32_arith.h), as the layers; max compares and propagates NaN (torch.amax).
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_scalar.h"

extern "C" TF_F32_NO_VECTORIZE void f32_reduce__ref(const f32_reduce_params* params,
                                                    const float* x, float* y) {
  const f32_reduce_params& p = *params;
  using namespace tinyforge::kernels::f32;
  const StandardFpscr mode;
  for (int32_t o = 0; o < p.outer; ++o) {
    for (int32_t i = 0; i < p.inner; ++i) {
      const float* in = x + o * p.length * p.inner + i;
      float acc = p.op == 2 ? in[0] : 0.0f;
      for (int32_t k = p.op == 2 ? 1 : 0; k < p.length; ++k) {
        const float v = in[k * p.inner];
        if (p.op != 2) {
          acc = Add(acc, v);
        } else if (v != v || v > acc) {
          if (acc == acc) acc = v;
        }
      }
      y[o * p.inner + i] = p.op == 1 ? DivByCount(acc, p.length) : acc;
    }
  }
}
