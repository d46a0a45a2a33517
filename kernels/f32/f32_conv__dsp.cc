// Float32 convolution for cores with a single-precision FPU and the DSP class (Cortex-M4F,
// M7, M33), bit-identical to f32_conv__ref: __ref's sums in __ref's order per output (taps
// row by row, input channels innermost, then + bias), register-blocked: 2 output pixels x 4
// output channels = 8 sums in FPU registers, so each loaded input feeds 4 products and each
// loaded weight 2 (6 loads per 8 multiply-adds instead of 16). A pixel pairs with the next
// one of its row when both windows have the same columns inside the input (every pixel of
// an unpadded or 1x1 convolution); other pixels and the last out_c % 4 channels take 1 x 4
// and 1 x 1 blocks. Runs in the standard mode (f32_arith.h: FPSCR.FZ, DN set for the call).
// Dilation along W other than 1, or no FPU: f32_conv__scalar.
#include "kernels/common/isa.h"
#include "kernels/f32/f32.h"

#if TF_HAVE_DSP

#if TF_HAVE_FPU
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_clamp.h"
#include "kernels/f32/f32_scalar.h"
#include "kernels/f32/f32_window.h"

namespace {

// NP pixels (inputs x[0..NP), each a run of n floats per kernel row) x NC channels (weight
// rows w + c * k): acc[p][c] += x[p][i] * w[c][i] in order.
template <int NP, int NC>
inline void Dot(float (&acc)[NP][NC], const float* const (&x)[NP], const float* w, int32_t k,
                int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    float xv[NP], wv[NC];
    for (int p = 0; p < NP; ++p) xv[p] = x[p][i];
    for (int c = 0; c < NC; ++c) wv[c] = w[c * k + i];
    for (int p = 0; p < NP; ++p) {
      for (int c = 0; c < NC; ++c) acc[p][c] += xv[p] * wv[c];
    }
  }
}

// Output pixels `px[0..NP)` (their first input row at ky0, column kx0) x channels [oc, oc+NC).
template <int NP, int NC>
inline void Block(const f32_conv_params& p, const float* const (&px)[NP], const float* w,
                  int32_t oc, int32_t ky0, int32_t ky1, int32_t kx0, int32_t run,
                  const float* bias, float lo, float hi, float* const (&yp)[NP]) {
  using tinyforge::kernels::f32::Clamp;
  const int32_t k = p.k_h * p.k_w * p.in_c;
  const int32_t row_step = p.dilation_h * p.in_w * p.in_c;
  float acc[NP][NC] = {};
  const float* x[NP];
  for (int q = 0; q < NP; ++q) x[q] = px[q];
  for (int32_t ky = ky0; ky < ky1; ++ky) {
    Dot<NP, NC>(acc, x, w + oc * k + (ky * p.k_w + kx0) * p.in_c, k, run);
    for (int q = 0; q < NP; ++q) x[q] += row_step;
  }
  for (int q = 0; q < NP; ++q) {
    for (int c = 0; c < NC; ++c) yp[q][oc + c] = Clamp(acc[q][c] + bias[oc + c], lo, hi);
  }
}

template <int NP>
inline void Pixels(const f32_conv_params& p, const float* const (&px)[NP], const float* w,
                   int32_t ky0, int32_t ky1, int32_t kx0, int32_t run, const float* bias,
                   float lo, float hi, float* const (&yp)[NP]) {
  int32_t oc = 0;
  for (; oc + 4 <= p.out_c; oc += 4) Block<NP, 4>(p, px, w, oc, ky0, ky1, kx0, run, bias, lo, hi, yp);
  for (; oc < p.out_c; ++oc) Block<NP, 1>(p, px, w, oc, ky0, ky1, kx0, run, bias, lo, hi, yp);
}

}  // namespace

extern "C" TF_F32_NO_VECTORIZE void f32_conv__dsp(const f32_conv_params* params, const float* x,
                                                  const float* w, const float* bias, float* y) {
  const f32_conv_params& p = *params;
  if (p.dilation_w != 1) {
    f32_conv__scalar(params, x, w, bias, y);
    return;
  }
  using namespace tinyforge::kernels::f32;
  const StandardFpscr mode;
  const float lo = FlushBits(p.act_min), hi = FlushBits(p.act_max);
  for (int32_t b = 0; b < p.batches; ++b) {
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      const int32_t iy0 = oy * p.stride_h - p.pad_top;
      int32_t ky0, ky1;
      TapRange(iy0, p.k_h, p.dilation_h, p.in_h, &ky0, &ky1);
      const float* x_row = x + (b * p.in_h + iy0 + ky0 * p.dilation_h) * p.in_w * p.in_c;
      float* y_row = y + (b * p.out_h + oy) * p.out_w * p.out_c;
      int32_t ox = 0;
      while (ox < p.out_w) {
        const int32_t ix0 = ox * p.stride_w - p.pad_left;
        int32_t kx0, kx1;
        TapRange(ix0, p.k_w, 1, p.in_w, &kx0, &kx1);
        const int32_t run = (kx1 - kx0) * p.in_c;
        const float* const pa = x_row + (ix0 + kx0) * p.in_c;
        float* const ya = y_row + ox * p.out_c;
        if (ox + 1 < p.out_w) {
          int32_t kx0b, kx1b;
          TapRange(ix0 + p.stride_w, p.k_w, 1, p.in_w, &kx0b, &kx1b);
          if (kx0b == kx0 && kx1b == kx1) {
            const float* const px[2] = {pa, pa + p.stride_w * p.in_c};
            float* const yp[2] = {ya, ya + p.out_c};
            Pixels<2>(p, px, w, ky0, ky1, kx0, run, bias, lo, hi, yp);
            ox += 2;
            continue;
          }
        }
        const float* const px[1] = {pa};
        float* const yp[1] = {ya};
        Pixels<1>(p, px, w, ky0, ky1, kx0, run, bias, lo, hi, yp);
        ++ox;
      }
    }
  }
}

#else

extern "C" void f32_conv__dsp(const f32_conv_params* params, const float* x, const float* w,
                              const float* bias, float* y) {
  f32_conv__scalar(params, x, w, bias, y);
}

#endif  // TF_HAVE_FPU
#endif  // TF_HAVE_DSP
