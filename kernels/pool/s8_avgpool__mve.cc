// AVERAGE_POOL_2D for Cortex-M55 (Helium / MVE), bit-identical to s8_avgpool__ref.
//
// Lanes are channels (NHWC: contiguous). Per output pixel the window is summed 32 channels
// at a time in four int16x8 accumulators (one widening byte load + one add per 8 channels
// and tap; exact while the window has at most 256 taps: |sum| <= 256 * 128), or 16 channels
// in four int32x4 accumulators for larger windows. The division by the tap count (one
// count per output pixel, shared by every channel) is an exact multiply-high by a
// reciprocal: round_half_away(sum / d) = sign(sum) * floor((|sum| + d / 2) * m >> (32 + s))
// with s = ceil(log2 d) - 1 and m = ceil(2^(32 + s) / d), exact for |sum| + d / 2 < 2^31.
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/common/fixed_point.h"

namespace {


struct Divider {
  uint32_t m;     // multiplier (0: d == 1)
  int32_t shift;  // right shift after the high multiply
  int32_t half;   // d / 2
};

inline Divider MakeDivider(int32_t d) {
  Divider v{0, 0, d / 2};
  if (d <= 1) return v;
  int32_t s = 0;  // ceil(log2 d) - 1
  while ((int64_t{1} << (s + 1)) < d) ++s;
  const uint64_t num = uint64_t{1} << (32 + s);
  v.m = static_cast<uint32_t>((num + static_cast<uint64_t>(d) - 1) / static_cast<uint64_t>(d));
  v.shift = s;
  return v;
}

// round_half_away(sum / d) for 4 lanes, then the activation clamp.
inline int32x4_t Divide(int32x4_t sum, const Divider& dv, int32x4_t vmin, int32x4_t vmax) {
  int32x4_t r = sum;
  if (dv.m != 0) {
    const uint32x4_t x = vreinterpretq_u32_s32(vaddq_n_s32(vabsq_s32(sum), dv.half));
    const uint32x4_t q = vshlq_r_u32(vmulhq_u32(x, vdupq_n_u32(dv.m)), -dv.shift);
    r = vreinterpretq_s32_u32(q);
    r = vnegq_m_s32(r, r, vcmpltq_n_s32(sum, 0));
  }
  return vminq_s32(vmaxq_s32(r, vmin), vmax);
}

// One output pixel: window rows [y0, y1) x cols [x0, x1) of `in` (a batch), channels c.
void PixelInt16(const s8_pool_params& p, const int8_t* in, int32_t y0, int32_t y1, int32_t x0,
                int32_t x1, const Divider& dv, int8_t* out) {
  const int32_t C = p.channels;
  const int32x4_t vmin = vdupq_n_s32(p.act_min), vmax = vdupq_n_s32(p.act_max);
  const int32_t row = p.in_w * C;
  for (int32_t c = 0; c < C; c += 32) {
    const int32_t n = C - c;
    int16x8_t a0 = vdupq_n_s16(0), a1 = a0, a2 = a0, a3 = a0;
    const int8_t* base = in + (y0 * p.in_w + x0) * C + c;
    if (n >= 32) {
      for (int32_t y = y0; y < y1; ++y, base += row) {
        const int8_t* px = base;
        for (int32_t x = x0; x < x1; ++x, px += C) {
          a0 = vaddq_s16(a0, vldrbq_s16(px));
          a1 = vaddq_s16(a1, vldrbq_s16(px + 8));
          a2 = vaddq_s16(a2, vldrbq_s16(px + 16));
          a3 = vaddq_s16(a3, vldrbq_s16(px + 24));
        }
      }
    } else {
      const mve_pred16_t p0 = vctp16q(static_cast<uint32_t>(n));
      const mve_pred16_t p1 = vctp16q(static_cast<uint32_t>(n > 8 ? n - 8 : 0));
      const mve_pred16_t p2 = vctp16q(static_cast<uint32_t>(n > 16 ? n - 16 : 0));
      const mve_pred16_t p3 = vctp16q(static_cast<uint32_t>(n > 24 ? n - 24 : 0));
      for (int32_t y = y0; y < y1; ++y, base += row) {
        const int8_t* px = base;
        for (int32_t x = x0; x < x1; ++x, px += C) {
          a0 = vaddq_s16(a0, vldrbq_z_s16(px, p0));
          if (n > 8) a1 = vaddq_s16(a1, vldrbq_z_s16(px + 8, p1));
          if (n > 16) a2 = vaddq_s16(a2, vldrbq_z_s16(px + 16, p2));
          if (n > 24) a3 = vaddq_s16(a3, vldrbq_z_s16(px + 24, p3));
        }
      }
    }
    // Widen (bottom / top halves: even / odd channels), divide, clamp, store interleaved
    // back by narrowing into one int16x8 per accumulator.
    const int16x8_t acc[4] = {a0, a1, a2, a3};
    for (int32_t k = 0; k < 4 && k * 8 < n; ++k) {
      const int32x4_t even = Divide(vmovlbq_s16(acc[k]), dv, vmin, vmax);
      const int32x4_t odd = Divide(vmovltq_s16(acc[k]), dv, vmin, vmax);
      const int16x8_t both = vmovntq_s32(vreinterpretq_s16_s32(even), odd);
      const int32_t left = n - k * 8;
      if (left >= 8) {
        vstrbq_s16(out + c + k * 8, both);
      } else {
        vstrbq_p_s16(out + c + k * 8, both, vctp16q(static_cast<uint32_t>(left)));
      }
    }
  }
}

void PixelInt32(const s8_pool_params& p, const int8_t* in, int32_t y0, int32_t y1, int32_t x0,
                int32_t x1, const Divider& dv, int8_t* out) {
  const int32_t C = p.channels;
  const int32x4_t vmin = vdupq_n_s32(p.act_min), vmax = vdupq_n_s32(p.act_max);
  const int32_t row = p.in_w * C;
  for (int32_t c = 0; c < C; c += 4) {
    const mve_pred16_t pr = vctp32q(static_cast<uint32_t>(C - c));
    int32x4_t a = vdupq_n_s32(0);
    const int8_t* base = in + (y0 * p.in_w + x0) * C + c;
    for (int32_t y = y0; y < y1; ++y, base += row) {
      const int8_t* px = base;
      for (int32_t x = x0; x < x1; ++x, px += C) a = vaddq_s32(a, vldrbq_z_s32(px, pr));
    }
    vstrbq_p_s32(out + c, Divide(a, dv, vmin, vmax), pr);
  }
}

}  // namespace

extern "C" void s8_avgpool__mve(const s8_pool_params* params, const int8_t* input, int8_t* output) {
  const s8_pool_params& p = *params;
  int32_t last_count = -1;
  Divider dv{};
  tinyforge::kernels::ForEachPoolWindow(
      p, input, output,
      [&](const int8_t* in, int32_t y0, int32_t y1, int32_t x0, int32_t x1, int8_t* out) {
        const int32_t count = (y1 - y0) * (x1 - x0);
        if (count != last_count) {
          dv = MakeDivider(count);
          last_count = count;
        }
        if (count <= 256) {
          PixelInt16(p, in, y0, y1, x0, x1, dv, out);
        } else {
          PixelInt32(p, in, y0, y1, x0, x1, dv, out);
        }
      });
}

#endif  // TF_HAVE_MVE
