// MAX_POOL_2D for cores without SIMD (Cortex-M0/M3; also built on the host). Bit-identical
// to s8_maxpool__ref.
//
// Per output pixel, channels in groups of 4 kept in registers: each tap loads the 4 bytes
// and updates 4 running maxima (compare + conditional move), walking the window with
// pointer increments instead of the reference's per-tap index arithmetic; the channel
// tail runs one channel at a time. Integer max and clamp only, no rounding involved.
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"

namespace {

inline int32_t Max(int32_t a, int32_t b) { return a > b ? a : b; }
inline int8_t Clamp(int32_t x, int32_t lo, int32_t hi) {
  x = x < lo ? lo : x;
  return static_cast<int8_t>(x > hi ? hi : x);
}

void Pixel(const s8_pool_params& p, const int8_t* in, int32_t y0, int32_t y1, int32_t x0,
           int32_t x1, int8_t* out) {
  const int32_t C = p.channels, row = p.in_w * C;
  const int32_t h = y1 - y0, w = x1 - x0;
  const int32_t lo = p.act_min, hi = p.act_max;
  const int8_t* base = in + (y0 * p.in_w + x0) * C;
  int32_t c = 0;
  for (; c + 4 <= C; c += 4) {
    // act_min as the starting value: max(max(taps), lo) == max(taps, lo).
    int32_t m0 = lo, m1 = lo, m2 = lo, m3 = lo;
    const int8_t* r = base + c;
    for (int32_t y = 0; y < h; ++y, r += row) {
      const int8_t* px = r;
      for (int32_t x = 0; x < w; ++x, px += C) {
        m0 = Max(m0, px[0]);
        m1 = Max(m1, px[1]);
        m2 = Max(m2, px[2]);
        m3 = Max(m3, px[3]);
      }
    }
    out[c] = static_cast<int8_t>(m0 > hi ? hi : m0);
    out[c + 1] = static_cast<int8_t>(m1 > hi ? hi : m1);
    out[c + 2] = static_cast<int8_t>(m2 > hi ? hi : m2);
    out[c + 3] = static_cast<int8_t>(m3 > hi ? hi : m3);
  }
  for (; c < C; ++c) {
    int32_t m = -128;
    const int8_t* r = base + c;
    for (int32_t y = 0; y < h; ++y, r += row) {
      const int8_t* px = r;
      for (int32_t x = 0; x < w; ++x, px += C) m = Max(m, *px);
    }
    out[c] = Clamp(m, lo, hi);
  }
}

}  // namespace

extern "C" void s8_maxpool__scalar(const s8_pool_params* params, const int8_t* input,
                                   int8_t* output) {
  const s8_pool_params& p = *params;
  tinyforge::kernels::ForEachPoolWindow(
      p, input, output,
      [&](const int8_t* in, int32_t y0, int32_t y1, int32_t x0, int32_t x1, int8_t* out) {
        Pixel(p, in, y0, y1, x0, x1, out);
      });
}
