// MAX_POOL_2D for Cortex-M55 (Helium / MVE), bit-identical to s8_maxpool__ref.
//
// Lanes are channels (NHWC: contiguous): per output pixel and tap, one 16-byte load and one
// VMAX per 16 channels, 64 channels per pass in four accumulators; tails predicated. The
// activation clamp is applied in int8 (vmax/vmin with the bounds) before the store.
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

}  // namespace

extern "C" void s8_maxpool__mve(const s8_pool_params* params, const int8_t* input, int8_t* output) {
  const s8_pool_params& p = *params;
  tinyforge::kernels::ForEachPoolWindow(
      p, input, output,
      [&](const int8_t* in, int32_t y0, int32_t y1, int32_t x0, int32_t x1, int8_t* out) {
        Pixel(p, in, y0, y1, x0, x1, out);
      });
}

#endif  // TF_HAVE_MVE
