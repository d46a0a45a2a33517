// Portable reference float32 function of two inputs, NumPy broadcasting (the oracle for any
// other variant).
#include "kernels/common/broadcast.h"
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_fn.h"

extern "C" void f32_binary__ref(const f32_binary_params* params, const float* a, const float* b,
                                float* y) {
  const int32_t fn = params->fn;
  tinyforge::kernels::ForEachBroadcast(params->shape, [&](int32_t i1, int32_t i2, int32_t o) {
    y[o] = tinyforge::kernels::f32::Binary(fn, a[i1], b[i2]);
  });
}
