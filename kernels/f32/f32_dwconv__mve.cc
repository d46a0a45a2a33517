// Float32 depthwise convolution for Cortex-M55 (Helium floating point), bit-identical to
// f32_dwconv__ref: per output pixel, blocks of up to 16 channels in four vectors (NHWC and
// 1HWC keep a pixel's channels contiguous); each lane sums its channel's products in __ref's
// order (taps row by row, then + bias): per tap one contiguous load of inputs and one of
// weights per vector, VMUL then VADD. MVE-F computes in the standard mode __ref defines
// (f32_arith.h). Depth multiplier other than 1, or a build without MVE-F:
// f32_dwconv__scalar.
#include "kernels/common/isa.h"
#include "kernels/f32/f32.h"

#if TF_HAVE_MVE

#if TF_HAVE_MVE_FLOAT
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_mve.h"
#include "kernels/f32/f32_window.h"

namespace {

using tinyforge::kernels::f32::mve::FinishStore;
using tinyforge::kernels::f32::mve::LanePred;

// Channels [ch, ch + n) of one output pixel, n in (4 * (NV - 1), 4 * NV]; x_tap0 / w_tap0 the
// input and weights of the first tap inside the input, at channel ch.
template <int NV>
inline void PixelBlock(const f32_conv_params& p, const float* x_tap0, const float* w_tap0,
                       int32_t n, int32_t ky0, int32_t ky1, int32_t kx0, int32_t kx1,
                       const float* bias, float lo, float hi, float* yp) {
  const int32_t c = p.in_c;
  const mve_pred16_t last = LanePred(n - 4 * (NV - 1));
  float32x4_t acc[NV];
  for (int v = 0; v < NV; ++v) acc[v] = vdupq_n_f32(0.0f);
  const int32_t x_col = p.dilation_w * c, w_col = c;
  const int32_t x_row = p.dilation_h * p.in_w * c, w_row = p.k_w * c;
  const float* xr = x_tap0;
  const float* wr = w_tap0;
  for (int32_t ky = ky0; ky < ky1; ++ky, xr += x_row, wr += w_row) {
    const float* xp = xr;
    const float* wp = wr;
    for (int32_t kx = kx0; kx < kx1; ++kx, xp += x_col, wp += w_col) {
      for (int v = 0; v < NV; ++v) {
        const float32x4_t xv = v == NV - 1 ? vldrwq_z_f32(xp + 4 * v, last) : vld1q_f32(xp + 4 * v);
        const float32x4_t wv = v == NV - 1 ? vldrwq_z_f32(wp + 4 * v, last) : vld1q_f32(wp + 4 * v);
        acc[v] = vaddq_f32(acc[v], vmulq_f32(xv, wv));
      }
    }
  }
  for (int v = 0; v < NV; ++v) {
    FinishStore(acc[v], bias + 4 * v, lo, hi, yp + 4 * v, v == NV - 1 ? last : LanePred(4));
  }
}

}  // namespace

extern "C" void f32_dwconv__mve(const f32_conv_params* params, const float* x, const float* w,
                                const float* bias, float* y) {
  const f32_conv_params& p = *params;
  if (p.out_c != p.in_c) {
    f32_dwconv__scalar(params, x, w, bias, y);
    return;
  }
  using namespace tinyforge::kernels::f32;
  const float lo = FlushBits(p.act_min), hi = FlushBits(p.act_max);
  const int32_t c = p.in_c;
  ForEachWindow(p, [&](const Window& win) TF_F32_INLINE {
    const float* x_tap0 = x + FirstTapPixel(p, win) * c;
    const float* w_tap0 = w + (win.ky0 * p.k_w + win.kx0) * c;
    float* yp = y + OutPixel(p, win) * c;
    mve::Blocks<4>(c, [&](auto nv, int32_t ch, int32_t n) __attribute__((always_inline)) {
      PixelBlock<decltype(nv)::kCount>(p, x_tap0 + ch, w_tap0 + ch, n, win.ky0, win.ky1, win.kx0,
                                       win.kx1, bias + ch, lo, hi, yp + ch);
    });
  });
}

#else

extern "C" void f32_dwconv__mve(const f32_conv_params* params, const float* x, const float* w,
                                const float* bias, float* y) {
  f32_dwconv__scalar(params, x, w, bias, y);
}

#endif  // TF_HAVE_MVE_FLOAT
#endif  // TF_HAVE_MVE
