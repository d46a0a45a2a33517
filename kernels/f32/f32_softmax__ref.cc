// Portable reference float32 softmax along the middle axis of [outer, length, inner]: the
// exponentials in double (f32_math.h: no libm) rounded to float32, their sum in double in
// element order, each quotient in double rounded once.
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_math.h"
#include "kernels/f32/f32_scalar.h"

extern "C" TF_F32_NO_VECTORIZE void f32_softmax__ref(const f32_softmax_params* params,
                                                     const float* x, float* y) {
  const f32_softmax_params& p = *params;
  using namespace tinyforge::kernels::f32;
  for (int32_t o = 0; o < p.outer; ++o) {
    for (int32_t i = 0; i < p.inner; ++i) {
      const float* in = x + o * p.length * p.inner + i;
      float* out = y + o * p.length * p.inner + i;
      float m = in[0];
      for (int32_t k = 1; k < p.length; ++k) {
        const float v = in[k * p.inner];
        if (v != v || v > m) m = m != m ? m : v;
      }
      // (x - max in double: exact for finite floats; -inf - -inf and NaN give NaN.)
      double sum = 0.0;
      for (int32_t k = 0; k < p.length; ++k) {
        const float e =
            static_cast<float>(Exp(static_cast<double>(in[k * p.inner]) - static_cast<double>(m)));
        out[k * p.inner] = e;
        sum += static_cast<double>(e);
      }
      for (int32_t k = 0; k < p.length; ++k) {
        out[k * p.inner] =
            static_cast<float>(static_cast<double>(out[k * p.inner]) / sum);
      }
    }
  }
}
