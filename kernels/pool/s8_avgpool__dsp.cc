// AVERAGE_POOL_2D for Cortex-M4/M7/M33 (DSP extension), bit-identical to s8_avgpool__ref.
//
// Per output pixel, channels in groups of 4: one word load per tap, SXTB16 into the even and
// odd channel pairs and two SADD16 into int16x2 sums (exact for windows of at most 256 taps:
// |sum| <= 256 * 128); larger windows sum in int32 per channel. The division by the tap
// count uses the hardware divider: sign(sum) * ((|sum| + count / 2) / count).
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"
#include "kernels/common/isa.h"
#include "kernels/common/word.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/common/fixed_point.h"

namespace {

using tinyforge::LoadWord;
using tinyforge::dsp::Sxtb16Ror8;

namespace fx = tinyforge::fx;

inline int8_t Average(int32_t sum, int32_t count, int32_t lo, int32_t hi) {
  const uint32_t mag =
      static_cast<uint32_t>(sum < 0 ? -sum : sum) + static_cast<uint32_t>(count / 2);
  const int32_t q = static_cast<int32_t>(mag / static_cast<uint32_t>(count));
  return static_cast<int8_t>(fx::Clamp(sum < 0 ? -q : q, lo, hi));
}

// Out of line: inlined into the shared walk, GCC allocates registers worse (M33 kernel
// bench, inlined -> out of line: vww 3x3x256 global 12,775 -> 12,618 instructions, kws
// 25x5x64 23,173 -> 23,130, 16x16x32 2x2 s2 78,168 -> 76,999).
__attribute__((noinline)) void Pixel(const s8_pool_params& p, const int8_t* in, int32_t y0,
                                     int32_t y1, int32_t x0, int32_t x1, int8_t* out) {
  const int32_t C = p.channels, row = p.in_w * C;
  const int32_t count = (y1 - y0) * (x1 - x0);
  const int32_t lo = p.act_min, hi = p.act_max;
  const int8_t* base = in + (y0 * p.in_w + x0) * C;
  int32_t c = 0;
  if (count <= 256) {
    for (; c + 4 <= C; c += 4) {
      int32_t even = 0, odd = 0;  // int16x2: channels (c, c+2), (c+1, c+3)
      const int8_t* r = base + c;
      for (int32_t y = y0; y < y1; ++y, r += row) {
        const int8_t* px = r;
        for (int32_t x = x0; x < x1; ++x, px += C) {
          const int32_t w = LoadWord(px);
          even = __sadd16(even, __sxtb16(w));
          odd = __sadd16(odd, Sxtb16Ror8(w));
        }
      }
      out[c] = Average(static_cast<int16_t>(even), count, lo, hi);
      out[c + 1] = Average(static_cast<int16_t>(odd), count, lo, hi);
      out[c + 2] = Average(even >> 16, count, lo, hi);
      out[c + 3] = Average(odd >> 16, count, lo, hi);
    }
  }
  for (; c < C; ++c) {
    int32_t sum = 0;
    const int8_t* r = base + c;
    for (int32_t y = y0; y < y1; ++y, r += row) {
      const int8_t* px = r;
      for (int32_t x = x0; x < x1; ++x, px += C) sum += *px;
    }
    out[c] = Average(sum, count, lo, hi);
  }
}

}  // namespace

extern "C" void s8_avgpool__dsp(const s8_pool_params* params, const int8_t* input, int8_t* output) {
  const s8_pool_params& p = *params;
  tinyforge::kernels::ForEachPoolWindow(
      p, input, output,
      [&](const int8_t* in, int32_t y0, int32_t y1, int32_t x0, int32_t x1, int8_t* out) {
        Pixel(p, in, y0, y1, x0, x1, out);
      });
}

#endif  // TF_HAVE_DSP
