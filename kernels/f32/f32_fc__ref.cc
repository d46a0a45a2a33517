// Portable reference float32 fully connected layer (the oracle for any other variant): per
// output, the float32 sum over the input features in order, then + bias, then the clamp.
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_scalar.h"
#include "kernels/f32/f32_clamp.h"

extern "C" TF_F32_NO_VECTORIZE void f32_fc__ref(const f32_fc_params* params, const float* x,
                                                const float* w, const float* bias, float* y) {
  const f32_fc_params& p = *params;
  for (int32_t b = 0; b < p.batches; ++b) {
    const float* xb = x + b * p.in_features;
    for (int32_t o = 0; o < p.out_features; ++o) {
      const float* wo = w + o * p.in_features;
      float acc = 0.0f;
      for (int32_t i = 0; i < p.in_features; ++i) acc += xb[i] * wo[i];
      acc += bias[o];
      y[b * p.out_features + o] = tinyforge::kernels::f32::Clamp(acc, p.act_min, p.act_max);
    }
  }
}
