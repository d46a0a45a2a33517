// Float32 depthwise convolution for cores with a single-precision FPU and the DSP class
// (Cortex-M4F, M7, M33), bit-identical to f32_dwconv__ref: __ref's sums in __ref's order
// (taps row by row, then + bias), 4 channels of an output pixel at a time with their sums
// in FPU registers (f32_dwconv__scalar keeps them in the output: a load and a store per
// product). Runs in the standard mode (f32_arith.h). Depth multiplier other than 1, or no
// FPU: f32_dwconv__scalar.
#include "kernels/common/isa.h"
#include "kernels/f32/f32.h"

#if TF_HAVE_DSP

#if TF_HAVE_FPU
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_clamp.h"
#include "kernels/f32/f32_scalar.h"
#include "kernels/f32/f32_window.h"

namespace {

// Channels [0, NC) at x_tap0 / w_tap0 (the first tap inside the input), NC sums.
template <int NC>
inline void Channels(const f32_conv_params& p, const float* x_tap0, const float* w_tap0,
                     const tinyforge::kernels::f32::Window& win, const float* bias, float lo,
                     float hi, float* yp) {
  using tinyforge::kernels::f32::Clamp;
  const int32_t c = p.in_c;
  const int32_t x_col = p.dilation_w * c, x_row = p.dilation_h * p.in_w * c, w_row = p.k_w * c;
  float acc[NC] = {};
  const float* xr = x_tap0;
  const float* wr = w_tap0;
  for (int32_t ky = win.ky0; ky < win.ky1; ++ky, xr += x_row, wr += w_row) {
    const float* xp = xr;
    const float* wp = wr;
    for (int32_t kx = win.kx0; kx < win.kx1; ++kx, xp += x_col, wp += c) {
      for (int j = 0; j < NC; ++j) acc[j] += xp[j] * wp[j];
    }
  }
  for (int j = 0; j < NC; ++j) yp[j] = Clamp(acc[j] + bias[j], lo, hi);
}

}  // namespace

extern "C" TF_F32_NO_VECTORIZE void f32_dwconv__dsp(const f32_conv_params* params,
                                                    const float* x, const float* w,
                                                    const float* bias, float* y) {
  const f32_conv_params& p = *params;
  if (p.out_c != p.in_c) {
    f32_dwconv__scalar(params, x, w, bias, y);
    return;
  }
  using namespace tinyforge::kernels::f32;
  const StandardFpscr mode;
  const float lo = FlushBits(p.act_min), hi = FlushBits(p.act_max);
  const int32_t c = p.in_c;
  ForEachWindow(p, [&](const Window& win) TF_F32_INLINE {
    const float* x_tap0 = x + FirstTapPixel(p, win) * c;
    const float* w_tap0 = w + (win.ky0 * p.k_w + win.kx0) * c;
    float* yp = y + OutPixel(p, win) * c;
    int32_t ch = 0;
    for (; ch + 4 <= c; ch += 4) {
      Channels<4>(p, x_tap0 + ch, w_tap0 + ch, win, bias + ch, lo, hi, yp + ch);
    }
    for (; ch < c; ++ch) Channels<1>(p, x_tap0 + ch, w_tap0 + ch, win, bias + ch, lo, hi, yp + ch);
  });
}

#else

extern "C" void f32_dwconv__dsp(const f32_conv_params* params, const float* x, const float* w,
                                const float* bias, float* y) {
  f32_dwconv__scalar(params, x, w, bias, y);
}

#endif  // TF_HAVE_FPU
#endif  // TF_HAVE_DSP
