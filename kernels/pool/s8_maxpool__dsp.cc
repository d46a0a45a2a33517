// MAX_POOL_2D for Cortex-M4/M7/M33 (DSP extension), bit-identical to s8_maxpool__ref.
//
// Four channels per word: SSUB8 sets the per-byte GE flags of (x - max) and SEL picks the
// larger bytes, two instructions per 4 channels and tap. Windows inside the input over a
// multiple of 4 channels skip the per-pixel setup (Inside).
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"
#include "kernels/common/isa.h"
#include "kernels/common/word.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/common/fixed_point.h"

namespace {

using tinyforge::LoadWord;
using tinyforge::dsp::Max4;
using tinyforge::dsp::Min4;

namespace fx = tinyforge::fx;

void Pixel(const s8_pool_params& p, const int8_t* in, int32_t y0, int32_t y1, int32_t x0,
           int32_t x1, int8_t* out) {
  const int32_t C = p.channels, row = p.in_w * C;
  const int8_t* base = in + (y0 * p.in_w + x0) * C;
  const uint32_t lo4 = 0x01010101u * static_cast<uint8_t>(p.act_min);
  const uint32_t hi4 = 0x01010101u * static_cast<uint8_t>(p.act_max);
  int32_t c = 0;
  for (; c + 4 <= C; c += 4) {
    uint32_t m = 0x80808080u;  // -128 x 4
    const int8_t* r = base + c;
    for (int32_t y = y0; y < y1; ++y, r += row) {
      const int8_t* px = r;
      for (int32_t x = x0; x < x1; ++x, px += C) m = Max4(LoadWord(px), m);
    }
    m = Min4(Max4(m, lo4), hi4);
    __builtin_memcpy(out + c, &m, 4);
  }
  for (; c < C; ++c) {
    int32_t m = -128;
    const int8_t* r = base + c;
    for (int32_t y = y0; y < y1; ++y, r += row) {
      const int8_t* px = r;
      for (int32_t x = x0; x < x1; ++x, px += C) m = fx::Max(m, *px);
    }
    out[c] = static_cast<int8_t>(fx::Clamp(m, p.act_min, p.act_max));
  }
}

// Windows inside the input and channels a multiple of 4 (WindowsInside): per output pixel
// and 4 channels the taps' maximum by SSUB8 + SEL, without Pixel's per-pixel setup; 1 x 2
// windows (1-D pools) as two loads and one Max4; the clamp only when it narrows int8.
template <bool kClamp>
__attribute__((noinline)) void Inside(const s8_pool_params& p, const int8_t* input,
                                      int8_t* out) {
  const int32_t C = p.channels, row = p.in_w * C;
  const uint32_t lo4 = 0x01010101u * static_cast<uint8_t>(p.act_min);
  const uint32_t hi4 = 0x01010101u * static_cast<uint8_t>(p.act_max);
  const bool one_by_two = p.filter_h == 1 && p.filter_w == 2;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* img = input + b * p.in_h * row;
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      const int8_t* base = img + oy * p.stride_h * row;
      for (int32_t ox = 0; ox < p.out_w; ++ox, base += p.stride_w * C) {
        for (int32_t c = 0; c < C; c += 4, out += 4) {
          const int8_t* r = base + c;
          uint32_t m;
          if (one_by_two) {
            m = Max4(LoadWord(r), LoadWord(r + C));
          } else {
            m = 0x80808080u;  // -128 x 4
            for (int32_t ky = 0; ky < p.filter_h; ++ky, r += row) {
              for (int32_t kx = 0; kx < p.filter_w; ++kx) m = Max4(LoadWord(r + kx * C), m);
            }
          }
          if (kClamp) m = Min4(Max4(m, lo4), hi4);
          __builtin_memcpy(out, &m, 4);
        }
      }
    }
  }
}

}  // namespace

extern "C" void s8_maxpool__dsp(const s8_pool_params* params, const int8_t* input, int8_t* output) {
  const s8_pool_params& p = *params;
  if (p.channels % 4 == 0 && tinyforge::kernels::WindowsInside(p)) {
    if (p.act_min > -128 || p.act_max < 127) {
      Inside<true>(p, input, output);
    } else {
      Inside<false>(p, input, output);
    }
    return;
  }
  tinyforge::kernels::ForEachPoolWindow(
      p, input, output,
      [&](const int8_t* in, int32_t y0, int32_t y1, int32_t x0, int32_t x1, int8_t* out) {
        Pixel(p, in, y0, y1, x0, x1, out);
      });
}

#endif  // TF_HAVE_DSP
