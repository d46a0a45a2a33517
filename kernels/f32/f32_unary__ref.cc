// Portable reference float32 function of one input (the oracle for any other variant).
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_fn.h"

extern "C" void f32_unary__ref(const f32_unary_params* params, const float* x, float* y) {
  const f32_unary_params& p = *params;
  for (int32_t i = 0; i < p.size; ++i) y[i] = tinyforge::kernels::f32::Unary(p.fn, x[i]);
}
