// MAX_POOL_2D for Cortex-M55 (Helium / MVE), bit-identical to s8_maxpool__ref.
//
// Lanes are channels (NHWC: contiguous): per output pixel and tap, one 16-byte load and one
// VMAX per 16 channels, 64 channels per pass in four accumulators; tails predicated. The
// activation clamp is applied in int8 (vmax/vmin with the bounds) before the store. Windows
// inside the input over a multiple of 16 channels skip the per-pixel setup (Inside).
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/common/fixed_point.h"

namespace {


void Pixel(const s8_pool_params& p, const int8_t* in, int32_t y0, int32_t y1, int32_t x0,
           int32_t x1, int8_t* out) {
  const int32_t C = p.channels;
  const int32_t row = p.in_w * C;
  const int8x16_t lo = vdupq_n_s8(static_cast<int8_t>(p.act_min));
  const int8x16_t hi = vdupq_n_s8(static_cast<int8_t>(p.act_max));
  for (int32_t c = 0; c < C; c += 64) {
    const int32_t n = C - c;
    int8x16_t m0 = vdupq_n_s8(-128), m1 = m0, m2 = m0, m3 = m0;
    const int8_t* base = in + (y0 * p.in_w + x0) * C + c;
    if (n >= 64) {
      for (int32_t y = y0; y < y1; ++y, base += row) {
        const int8_t* px = base;
        for (int32_t x = x0; x < x1; ++x, px += C) {
          m0 = vmaxq_s8(m0, vld1q_s8(px));
          m1 = vmaxq_s8(m1, vld1q_s8(px + 16));
          m2 = vmaxq_s8(m2, vld1q_s8(px + 32));
          m3 = vmaxq_s8(m3, vld1q_s8(px + 48));
        }
      }
    } else {
      // Predicated-off lanes load 0, harmless: those lanes are never stored.
      const mve_pred16_t p0 = vctp8q(static_cast<uint32_t>(n));
      const mve_pred16_t p1 = vctp8q(static_cast<uint32_t>(n > 16 ? n - 16 : 0));
      const mve_pred16_t p2 = vctp8q(static_cast<uint32_t>(n > 32 ? n - 32 : 0));
      const mve_pred16_t p3 = vctp8q(static_cast<uint32_t>(n > 48 ? n - 48 : 0));
      for (int32_t y = y0; y < y1; ++y, base += row) {
        const int8_t* px = base;
        for (int32_t x = x0; x < x1; ++x, px += C) {
          m0 = vmaxq_s8(m0, vldrbq_z_s8(px, p0));
          if (n > 16) m1 = vmaxq_s8(m1, vldrbq_z_s8(px + 16, p1));
          if (n > 32) m2 = vmaxq_s8(m2, vldrbq_z_s8(px + 32, p2));
          if (n > 48) m3 = vmaxq_s8(m3, vldrbq_z_s8(px + 48, p3));
        }
      }
    }
    const int8x16_t acc[4] = {m0, m1, m2, m3};
    for (int32_t k = 0; k < 4 && k * 16 < n; ++k) {
      const int8x16_t r = vminq_s8(vmaxq_s8(acc[k], lo), hi);
      const int32_t left = n - k * 16;
      if (left >= 16) {
        vst1q_s8(out + c + k * 16, r);
      } else {
        vstrbq_p_s8(out + c + k * 16, r, vctp8q(static_cast<uint32_t>(left)));
      }
    }
  }
}

// Windows inside the input and channels a multiple of 16 (WindowsInside): per output pixel
// and 16 channels the taps' maximum, clamped and stored, without Pixel's per-pixel setup;
// 1 x 2 windows (1-D pools) as two loads and one VMAX.
__attribute__((noinline)) void Inside(const s8_pool_params& p, const int8_t* input,
                                      int8_t* out) {
  const int32_t C = p.channels, row = p.in_w * C;
  const int8x16_t lo = vdupq_n_s8(static_cast<int8_t>(p.act_min));
  const int8x16_t hi = vdupq_n_s8(static_cast<int8_t>(p.act_max));
  const bool one_by_two = p.filter_h == 1 && p.filter_w == 2;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* img = input + b * p.in_h * row;
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      const int8_t* base = img + oy * p.stride_h * row;
      for (int32_t ox = 0; ox < p.out_w; ++ox, base += p.stride_w * C) {
        for (int32_t c = 0; c < C; c += 16, out += 16) {
          const int8_t* r = base + c;
          int8x16_t m;
          if (one_by_two) {
            m = vmaxq_s8(vld1q_s8(r), vld1q_s8(r + C));
          } else {
            m = vdupq_n_s8(-128);
            for (int32_t ky = 0; ky < p.filter_h; ++ky, r += row) {
              for (int32_t kx = 0; kx < p.filter_w; ++kx) m = vmaxq_s8(m, vld1q_s8(r + kx * C));
            }
          }
          vst1q_s8(out, vminq_s8(vmaxq_s8(m, lo), hi));
        }
      }
    }
  }
}

}  // namespace

extern "C" void s8_maxpool__mve(const s8_pool_params* params, const int8_t* input, int8_t* output) {
  const s8_pool_params& p = *params;
  if (p.channels % 16 == 0 && tinyforge::kernels::WindowsInside(p)) {
    Inside(p, input, output);
    return;
  }
  tinyforge::kernels::ForEachPoolWindow(
      p, input, output,
      [&](const int8_t* in, int32_t y0, int32_t y1, int32_t x0, int32_t x1, int8_t* out) {
        Pixel(p, in, y0, y1, x0, x1, out);
      });
}

#endif  // TF_HAVE_MVE
