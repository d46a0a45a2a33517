// Float32 convolution for Cortex-M55 (Helium floating point), bit-identical to f32_conv__ref:
// per output pixel, blocks of up to 12 output channels in three vectors (3 sums + 3 address
// vectors + 1 product: 7 of the 8 Q registers); each lane sums its
// channel's products in __ref's order (taps row by row, input channels innermost, then
// + bias), the weights of the 4 channels of a vector fetched by one gather whose lane
// addresses step through the 4 weight rows (VLDRW gather with writeback), the input value
// broadcast from a register (VMUL by scalar, then VADD). A 1x1 convolution is the same loop
// with one tap. MVE-F computes in the standard mode __ref defines (f32_arith.h); the scalar
// clamp bounds go through FlushBits as in __ref. Dilation along W other than 1, or a build
// without MVE-F: f32_conv__scalar.
#include "kernels/common/isa.h"
#include "kernels/f32/f32.h"

#if TF_HAVE_MVE

#if TF_HAVE_MVE_FLOAT
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_mve.h"
#include "kernels/f32/f32_window.h"

namespace {

using tinyforge::kernels::f32::mve::FinishStore;
using tinyforge::kernels::f32::mve::GatherDot;
using tinyforge::kernels::f32::mve::LanePred;
using tinyforge::kernels::f32::mve::TailAddresses;

// One output pixel's channels [oc, oc + n), n in (4 * (NV - 1), 4 * NV].
template <int NV>
inline void PixelBlock(const f32_conv_params& p, const float* x_row0, const float* w, int32_t oc,
                       int32_t n, int32_t ky0, int32_t ky1, int32_t kx0, int32_t run,
                       const float* bias, float lo, float hi, float* yp) {
  const int32_t taps = p.k_h * p.k_w * p.in_c;  // one channel's weights
  const mve_pred16_t last = LanePred(n - 4 * (NV - 1));
  float32x4_t acc[NV];
  for (int v = 0; v < NV; ++v) acc[v] = vdupq_n_f32(0.0f);
  // Lane l of vector v: weight row oc + 4 v + l, at (ky0, kx0, 0), minus the 4 bytes the
  // first gather's writeback adds.
  const uint32x4_t lanes = vmulq_n_u32(vidupq_n_u32(0, 1), static_cast<uint32_t>(taps * 4));
  const uint32_t w_base = reinterpret_cast<uint32_t>(w + oc * taps);
  const int32_t row_step = p.dilation_h * p.in_w * p.in_c;  // input floats per kernel row
  const float* xr = x_row0;
  for (int32_t ky = ky0; ky < ky1; ++ky, xr += row_step) {
    const uint32_t start = w_base + static_cast<uint32_t>(((ky * p.k_w + kx0) * p.in_c - 1) * 4);
    uint32x4_t addr[NV];
    for (int v = 0; v < NV; ++v) {
      addr[v] = vaddq_n_u32(lanes, start + static_cast<uint32_t>(v * 4 * taps * 4));
    }
    addr[NV - 1] = TailAddresses(addr[NV - 1], last);
    GatherDot<NV>(acc, addr, xr, run);
  }
  for (int v = 0; v < NV; ++v) {
    FinishStore(acc[v], bias + oc + 4 * v, lo, hi, yp + oc + 4 * v,
                v == NV - 1 ? last : LanePred(4));
  }
}

}  // namespace

extern "C" void f32_conv__mve(const f32_conv_params* params, const float* x, const float* w,
                              const float* bias, float* y) {
  const f32_conv_params& p = *params;
  if (p.dilation_w != 1) {
    f32_conv__scalar(params, x, w, bias, y);
    return;
  }
  using namespace tinyforge::kernels::f32;
  const float lo = FlushBits(p.act_min), hi = FlushBits(p.act_max);
  ForEachWindow<true>(p, [&](const Window& win) TF_F32_INLINE {  // dilation_w is 1
    const int32_t run = (win.kx1 - win.kx0) * p.in_c;
    const float* x_row0 = x + FirstTapPixel<true>(p, win) * p.in_c;
    float* yp = y + OutPixel(p, win) * p.out_c;
    mve::Blocks<3>(p.out_c, [&](auto nv, int32_t oc, int32_t n) __attribute__((always_inline)) {
      PixelBlock<decltype(nv)::kCount>(p, x_row0, w, oc, n, win.ky0, win.ky1, win.kx0, run,
                                       bias, lo, hi, yp);
    });
  });
}

#else

extern "C" void f32_conv__mve(const f32_conv_params* params, const float* x, const float* w,
                              const float* bias, float* y) {
  f32_conv__scalar(params, x, w, bias, y);
}

#endif  // TF_HAVE_MVE_FLOAT
#endif  // TF_HAVE_MVE
