// AVERAGE_POOL_2D for cores without SIMD (Cortex-M0/M3; also built on the host). Bit-identical
// to s8_avgpool__ref.
//
// Per output pixel, channels in groups of 4 with 32-bit SWAR: one word load per tap, the
// bytes biased to unsigned (x ^ 0x80 = x + 128) and split into two int16x2 sums, channels
// (c, c+2) and (c+1, c+3). Exact for windows of at most 256 taps (each lane <= 256 * 255 <
// 2^16); the signed sum is lane - 128 * count. Larger windows, and the channel tail, sum in
// int32 per channel with pointer walks instead of the reference's index arithmetic. The
// division by the tap count is the reference's round-half-away-from-zero:
// sign(sum) * ((|sum| + count / 2) / count) with an unsigned (UDIV) division; the SWAR lanes
// divide their biased sum u = sum + 128 * count >= 0 directly:
//   sum >= 0: (u + count / 2) / count - 128
//   sum < 0:  ceil((sum - count / 2) / count) = (u + count - 1 - count / 2) / count - 128,
// i.e. one division of u + count / 2 - (count even and u < 128 * count).
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"
#include "kernels/common/word.h"

namespace {

using tinyforge::LoadWord;

// The SWAR lanes: u = sum + 128 * count (u < 2^16), thr = 128 * count for even counts, else 0.
inline int8_t AverageBiased(uint32_t u, uint32_t half, uint32_t thr, uint32_t count, int32_t lo,
                            int32_t hi) {
  const uint32_t t = u + half - (u < thr ? 1u : 0u);
  int32_t y = static_cast<int32_t>(t / count) - 128;
  y = y < lo ? lo : y;
  y = y > hi ? hi : y;
  return static_cast<int8_t>(y);
}

inline int8_t Average(int32_t sum, int32_t count, int32_t lo, int32_t hi) {
  const uint32_t mag =
      static_cast<uint32_t>(sum < 0 ? -sum : sum) + static_cast<uint32_t>(count / 2);
  const int32_t q = static_cast<int32_t>(mag / static_cast<uint32_t>(count));
  int32_t y = sum < 0 ? -q : q;
  y = y < lo ? lo : y;
  y = y > hi ? hi : y;
  return static_cast<int8_t>(y);
}

void Pixel(const s8_pool_params& p, const int8_t* in, int32_t y0, int32_t y1, int32_t x0,
           int32_t x1, int8_t* out) {
  const int32_t C = p.channels, row = p.in_w * C;
  const int32_t h = y1 - y0, w = x1 - x0;
  const int32_t count = h * w;
  const int32_t lo = p.act_min, hi = p.act_max;
  const int8_t* base = in + (y0 * p.in_w + x0) * C;
  int32_t c = 0;
  if (count <= 256) {
    const uint32_t uc = static_cast<uint32_t>(count), half = uc / 2;
    const uint32_t thr = (uc & 1u) != 0 ? 0u : 128u * uc;
    for (; c + 4 <= C; c += 4) {
      uint32_t even = 0, odd = 0;  // uint16x2: biased channels (c, c+2), (c+1, c+3)
      const int8_t* r = base + c;
      for (int32_t y = 0; y < h; ++y, r += row) {
        const int8_t* px = r;
        for (int32_t x = 0; x < w; ++x, px += C) {
          const uint32_t v = LoadWord(px) ^ 0x80808080u;
          even += v & 0x00FF00FFu;
          odd += (v >> 8) & 0x00FF00FFu;
        }
      }
      out[c] = AverageBiased(even & 0xFFFFu, half, thr, uc, lo, hi);
      out[c + 1] = AverageBiased(odd & 0xFFFFu, half, thr, uc, lo, hi);
      out[c + 2] = AverageBiased(even >> 16, half, thr, uc, lo, hi);
      out[c + 3] = AverageBiased(odd >> 16, half, thr, uc, lo, hi);
    }
  }
  for (; c < C; ++c) {
    int32_t sum = 0;
    const int8_t* r = base + c;
    for (int32_t y = 0; y < h; ++y, r += row) {
      const int8_t* px = r;
      for (int32_t x = 0; x < w; ++x, px += C) sum += *px;
    }
    out[c] = Average(sum, count, lo, hi);
  }
}

}  // namespace

extern "C" void s8_avgpool__scalar(const s8_pool_params* params, const int8_t* input,
                                   int8_t* output) {
  const s8_pool_params& p = *params;
  tinyforge::kernels::ForEachPoolWindow(
      p, input, output,
      [&](const int8_t* in, int32_t y0, int32_t y1, int32_t x0, int32_t x1, int8_t* out) {
        Pixel(p, in, y0, y1, x0, x1, out);
      });
}
