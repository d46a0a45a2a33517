// Portable reference float32 fully connected layer (the oracle for any other variant): per
// output, the float32 sum over the input features in order, then + bias, then the clamp;
// every product and sum in the standard mode (f32_arith.h).
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_scalar.h"
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_clamp.h"

extern "C" TF_F32_NO_VECTORIZE void f32_fc__ref(const f32_fc_params* params, const float* x,
                                                const float* w, const float* bias, float* y) {
  const f32_fc_params& p = *params;
  using namespace tinyforge::kernels::f32;
  const StandardFpscr mode;
  const float lo = FlushBits(p.act_min), hi = FlushBits(p.act_max);
  for (int32_t b = 0; b < p.batches; ++b) {
    const float* xb = x + b * p.in_features;
    for (int32_t o = 0; o < p.out_features; ++o) {
      const float* wo = w + o * p.in_features;
      float acc = 0.0f;
      for (int32_t i = 0; i < p.in_features; ++i) acc = Add(acc, Mul(xb[i], wo[i]));
      acc = Add(acc, bias[o]);
      y[b * p.out_features + o] = Clamp(acc, lo, hi);
    }
  }
}
