// Portable reference float32 batched matrix product: each output the float32 sum of its
// products over depth in order, in the standard mode (f32_arith.h), as f32_fc.
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_scalar.h"

extern "C" TF_F32_NO_VECTORIZE void f32_bmm__ref(const f32_bmm_params* params, const float* a,
                                                 const float* b, float* y) {
  const f32_bmm_params& p = *params;
  using namespace tinyforge::kernels::f32;
  const StandardFpscr mode;
  for (int32_t n = 0; n < p.batches; ++n) {
    const float* an = a + (p.a_broadcast ? 0 : n * p.rows * p.depth);
    const float* bn = b + (p.b_broadcast ? 0 : n * p.depth * p.cols);
    float* yn = y + n * p.rows * p.cols;
    for (int32_t r = 0; r < p.rows; ++r) {
      for (int32_t c = 0; c < p.cols; ++c) {
        float acc = 0.0f;
        for (int32_t k = 0; k < p.depth; ++k) {
          acc = Add(acc, Mul(an[r * p.depth + k], bn[k * p.cols + c]));
        }
        yn[r * p.cols + c] = acc;
      }
    }
  }
}
