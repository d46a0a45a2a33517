// Float32 fully connected layer for cores with a single-precision FPU and the DSP class
// (Cortex-M4F, M7, M33), bit-identical to f32_fc__ref: per batch row, 4 outputs at a time
// with their sums in FPU registers, each loaded input feeding 4 products (5 loads per 4
// multiply-adds instead of 8); each output's sum over the input features in order, then
// + bias. Runs in the standard mode (f32_arith.h). No FPU: __ref.
#include "kernels/common/isa.h"
#include "kernels/f32/f32.h"

#if TF_HAVE_DSP

#if TF_HAVE_FPU
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_clamp.h"
#include "kernels/f32/f32_scalar.h"

namespace {

// Outputs [o, o + NC) of one batch row.
template <int NC>
inline void Outputs(const float* xb, const float* w, int32_t k, int32_t o, const float* bias,
                    float lo, float hi, float* yb) {
  using tinyforge::kernels::f32::Clamp;
  float acc[NC] = {};
  const float* wo = w + o * k;
  for (int32_t i = 0; i < k; ++i) {
    const float xv = xb[i];
    for (int c = 0; c < NC; ++c) acc[c] += xv * wo[c * k + i];
  }
  for (int c = 0; c < NC; ++c) yb[o + c] = Clamp(acc[c] + bias[o + c], lo, hi);
}

}  // namespace

extern "C" TF_F32_NO_VECTORIZE void f32_fc__dsp(const f32_fc_params* params, const float* x,
                                                const float* w, const float* bias, float* y) {
  const f32_fc_params& p = *params;
  using namespace tinyforge::kernels::f32;
  const StandardFpscr mode;
  const float lo = FlushBits(p.act_min), hi = FlushBits(p.act_max);
  const int32_t k = p.in_features;
  for (int32_t b = 0; b < p.batches; ++b) {
    const float* xb = x + b * k;
    float* yb = y + b * p.out_features;
    int32_t o = 0;
    for (; o + 4 <= p.out_features; o += 4) Outputs<4>(xb, w, k, o, bias, lo, hi, yb);
    for (; o < p.out_features; ++o) Outputs<1>(xb, w, k, o, bias, lo, hi, yb);
  }
}

#else

extern "C" void f32_fc__dsp(const f32_fc_params* params, const float* x, const float* w,
                            const float* bias, float* y) {
  f32_fc__ref(params, x, w, bias, y);
}

#endif  // TF_HAVE_FPU
#endif  // TF_HAVE_DSP
