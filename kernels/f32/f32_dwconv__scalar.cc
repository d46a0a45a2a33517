// Float32 depthwise convolution for any core: __ref's sums in __ref's order (per output:
// taps row by row, then + bias), bit-identical to it, computed for all channels of an
// output pixel at once in the output itself (y += x * w per tap over contiguous channels).
// Depth multiplier 1 (any other goes to __ref).
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_scalar.h"
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_clamp.h"
#include "kernels/f32/f32_window.h"

extern "C" TF_F32_NO_VECTORIZE void f32_dwconv__scalar(const f32_conv_params* params,
                                                       const float* x, const float* w,
                                                       const float* bias, float* y) {
  const f32_conv_params& p = *params;
  if (p.out_c != p.in_c) {
    f32_dwconv__ref(params, x, w, bias, y);
    return;
  }
  using namespace tinyforge::kernels::f32;
  const StandardFpscr mode;
  const float lo = FlushBits(p.act_min), hi = FlushBits(p.act_max);
  const int32_t c = p.in_c;
  for (int32_t b = 0; b < p.batches; ++b) {
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      const int32_t iy0 = oy * p.stride_h - p.pad_top;
      int32_t ky0, ky1;
      TapRange(iy0, p.k_h, p.dilation_h, p.in_h, &ky0, &ky1);
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        const int32_t ix0 = ox * p.stride_w - p.pad_left;
        int32_t kx0, kx1;
        TapRange(ix0, p.k_w, p.dilation_w, p.in_w, &kx0, &kx1);
        float* __restrict yp = y + ((b * p.out_h + oy) * p.out_w + ox) * c;
        for (int32_t ch = 0; ch < c; ++ch) yp[ch] = 0.0f;
        for (int32_t ky = ky0; ky < ky1; ++ky) {
          const int32_t iy = iy0 + ky * p.dilation_h;
          for (int32_t kx = kx0; kx < kx1; ++kx) {
            const int32_t ix = ix0 + kx * p.dilation_w;
            const float* __restrict xp = x + ((b * p.in_h + iy) * p.in_w + ix) * c;
            const float* __restrict wp = w + (ky * p.k_w + kx) * c;
            for (int32_t ch = 0; ch < c; ++ch) yp[ch] = Add(yp[ch], Mul(xp[ch], wp[ch]));
          }
        }
        for (int32_t ch = 0; ch < c; ++ch) yp[ch] = Clamp(Add(yp[ch], bias[ch]), lo, hi);
      }
    }
  }
}
