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
  ForEachWindow(p, [&](const Window& win) TF_F32_INLINE {
    float* __restrict yp = y + OutPixel(p, win) * c;
    for (int32_t ch = 0; ch < c; ++ch) yp[ch] = 0.0f;
    for (int32_t ky = win.ky0; ky < win.ky1; ++ky) {
      const int32_t iy = win.iy0 + ky * p.dilation_h;
      for (int32_t kx = win.kx0; kx < win.kx1; ++kx) {
        const int32_t ix = win.ix0 + kx * p.dilation_w;
        const float* __restrict xp = x + ((win.b * p.in_h + iy) * p.in_w + ix) * c;
        const float* __restrict wp = w + (ky * p.k_w + kx) * c;
        for (int32_t ch = 0; ch < c; ++ch) yp[ch] = Add(yp[ch], Mul(xp[ch], wp[ch]));
      }
    }
    for (int32_t ch = 0; ch < c; ++ch) yp[ch] = Clamp(Add(yp[ch], bias[ch]), lo, hi);
  });
}
