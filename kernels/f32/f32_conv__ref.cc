// Portable reference float32 convolution, NHWC input, OHWI weights (the oracle for any other
// variant). Per output: float32 sum over the taps row by row (ky, kx, then input channel),
// then + bias, then the clamp; every product and sum in the standard mode (f32_arith.h).
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_scalar.h"
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_clamp.h"

extern "C" TF_F32_NO_VECTORIZE void f32_conv__ref(const f32_conv_params* params, const float* x,
                                                  const float* w, const float* bias, float* y) {
  const f32_conv_params& p = *params;
  using namespace tinyforge::kernels::f32;
  const StandardFpscr mode;
  const float lo = FlushBits(p.act_min), hi = FlushBits(p.act_max);
  for (int32_t b = 0; b < p.batches; ++b) {
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        for (int32_t oc = 0; oc < p.out_c; ++oc) {
          float acc = 0.0f;
          for (int32_t ky = 0; ky < p.k_h; ++ky) {
            const int32_t iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
            if (iy < 0 || iy >= p.in_h) continue;
            for (int32_t kx = 0; kx < p.k_w; ++kx) {
              const int32_t ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
              if (ix < 0 || ix >= p.in_w) continue;
              const float* xp = x + ((b * p.in_h + iy) * p.in_w + ix) * p.in_c;
              const float* wp = w + ((oc * p.k_h + ky) * p.k_w + kx) * p.in_c;
              for (int32_t ic = 0; ic < p.in_c; ++ic) acc = Add(acc, Mul(xp[ic], wp[ic]));
            }
          }
          acc = Add(acc, bias[oc]);
          y[((b * p.out_h + oy) * p.out_w + ox) * p.out_c + oc] = Clamp(acc, lo, hi);
        }
      }
    }
  }
}
