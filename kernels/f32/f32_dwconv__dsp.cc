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
                     int32_t ky0, int32_t ky1, int32_t kx0, int32_t kx1, const float* bias,
                     float lo, float hi, float* yp) {
  using tinyforge::kernels::f32::Clamp;
  const int32_t c = p.in_c;
  const int32_t x_col = p.dilation_w * c, x_row = p.dilation_h * p.in_w * c, w_row = p.k_w * c;
  float acc[NC] = {};
  const float* xr = x_tap0;
  const float* wr = w_tap0;
  for (int32_t ky = ky0; ky < ky1; ++ky, xr += x_row, wr += w_row) {
    const float* xp = xr;
    const float* wp = wr;
    for (int32_t kx = kx0; kx < kx1; ++kx, xp += x_col, wp += c) {
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
  for (int32_t b = 0; b < p.batches; ++b) {
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      const int32_t iy0 = oy * p.stride_h - p.pad_top;
      int32_t ky0, ky1;
      TapRange(iy0, p.k_h, p.dilation_h, p.in_h, &ky0, &ky1);
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        const int32_t ix0 = ox * p.stride_w - p.pad_left;
        int32_t kx0, kx1;
        TapRange(ix0, p.k_w, p.dilation_w, p.in_w, &kx0, &kx1);
        const float* x_tap0 =
            x + ((b * p.in_h + iy0 + ky0 * p.dilation_h) * p.in_w + ix0 + kx0 * p.dilation_w) * c;
        const float* w_tap0 = w + (ky0 * p.k_w + kx0) * c;
        float* yp = y + ((b * p.out_h + oy) * p.out_w + ox) * c;
        int32_t ch = 0;
        for (; ch + 4 <= c; ch += 4) {
          Channels<4>(p, x_tap0 + ch, w_tap0 + ch, ky0, ky1, kx0, kx1, bias + ch, lo, hi, yp + ch);
        }
        for (; ch < c; ++ch) {
          Channels<1>(p, x_tap0 + ch, w_tap0 + ch, ky0, ky1, kx0, kx1, bias + ch, lo, hi, yp + ch);
        }
      }
    }
  }
}

#else

extern "C" void f32_dwconv__dsp(const f32_conv_params* params, const float* x, const float* w,
                                const float* bias, float* y) {
  f32_dwconv__scalar(params, x, w, bias, y);
}

#endif  // TF_HAVE_FPU
#endif  // TF_HAVE_DSP
