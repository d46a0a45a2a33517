// Float32 convolution for any core (FPU or soft-float): __ref's sums in __ref's order (taps
// row by row, input channels innermost, then + bias), bit-identical to it, without its
// per-tap bounds tests: the window's rows inside the input are one range, and with dilation
// 1 a kernel row's taps inside the input are one contiguous run of input and weight floats.
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_scalar.h"
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_clamp.h"
#include "kernels/f32/f32_window.h"

namespace {

// acc + a[0]*b[0] + a[1]*b[1] + ... in order (no reassociation: the result is __ref's).
inline float DotInOrder(float acc, const float* a, const float* b, int32_t n) {
  using tinyforge::kernels::f32::Add;
  using tinyforge::kernels::f32::Mul;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    acc = Add(acc, Mul(a[i], b[i]));
    acc = Add(acc, Mul(a[i + 1], b[i + 1]));
    acc = Add(acc, Mul(a[i + 2], b[i + 2]));
    acc = Add(acc, Mul(a[i + 3], b[i + 3]));
  }
  for (; i < n; ++i) acc = Add(acc, Mul(a[i], b[i]));
  return acc;
}

}  // namespace

extern "C" TF_F32_NO_VECTORIZE void f32_conv__scalar(const f32_conv_params* params,
                                                     const float* x, const float* w,
                                                     const float* bias, float* y) {
  const f32_conv_params& p = *params;
  if (p.dilation_w != 1) {
    f32_conv__ref(params, x, w, bias, y);
    return;
  }
  using namespace tinyforge::kernels::f32;
  const StandardFpscr mode;
  const float lo = FlushBits(p.act_min), hi = FlushBits(p.act_max);
  ForEachWindow<true>(p, [&](const Window& win) TF_F32_INLINE {  // dilation_w is 1
    const int32_t run = (win.kx1 - win.kx0) * p.in_c;
    float* yp = y + OutPixel(p, win) * p.out_c;
    for (int32_t oc = 0; oc < p.out_c; ++oc) {
      float acc = 0.0f;
      for (int32_t ky = win.ky0; ky < win.ky1; ++ky) {
        const int32_t iy = win.iy0 + ky * p.dilation_h;
        acc = DotInOrder(acc, x + ((win.b * p.in_h + iy) * p.in_w + win.ix0 + win.kx0) * p.in_c,
                         w + ((oc * p.k_h + ky) * p.k_w + win.kx0) * p.in_c, run);
      }
      acc = Add(acc, bias[oc]);
      yp[oc] = Clamp(acc, lo, hi);
    }
  });
}
