// MEAN / SUM for cores with the DSP extension (Cortex-M4/M7/M33), bit-identical to
// s8_mean__ref.
//
// Four inner positions (channels) per 32-bit word: SXTAB16 adds bytes 0 and 2 of a word into
// two int16 lanes and, rotated by 8, bytes 1 and 3 into two more: one load and two adds per
// four inputs. int16 lanes are exact for 256 rows (|sum| <= 256 * 128), so the rows go in
// chunks of 256 whose lane sums are added into int32. inner == 1 sums four contiguous bytes
// per word the same way. The channel tail is summed bytewise.
#include "kernels/mean/mean.h"
#include "kernels/common/isa.h"
#include "kernels/common/word.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/mean/reduce_walk.h"

namespace mean = tinyforge::mean;

namespace {

using tinyforge::LoadWord;
using tinyforge::dsp::Sxtab16Ror8;

inline int32_t Lo(uint32_t v) { return static_cast<int16_t>(v & 0xFFFFu); }
inline int32_t Hi(uint32_t v) { return static_cast<int16_t>(v >> 16); }

constexpr int32_t kChunk = 256;  // rows per int16 accumulation

// The sum of the r contiguous inputs from q (inner == 1).
int32_t SumRun(const int8_t* q, int32_t r) {
  int32_t total = 0;
  while (r >= 4) {
    int32_t n = r / 4 < kChunk ? r / 4 : kChunk;  // words: one byte per lane each
    r -= 4 * n;
    uint32_t even = 0, odd = 0;
    for (; n > 0; --n, q += 4) {
      const uint32_t w = LoadWord(q);
      even = __sxtab16(even, w);
      odd = Sxtab16Ror8(odd, w);
    }
    total += Lo(even) + Hi(even) + Lo(odd) + Hi(odd);
  }
  for (; r > 0; --r) total += *q++;
  return total;
}

// The inner outputs of one slice (inner > 1).
void Columns(const s8_mean_params& p, int32_t zps, const int8_t* in, int8_t* out) {
  const int32_t R = p.reduce_size, C = p.inner;
  int32_t c = 0;
  for (; c + 4 <= C; c += 4) {
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    const int8_t* q = in + c;
    for (int32_t r = R; r > 0;) {
      int32_t n = r < kChunk ? r : kChunk;
      r -= n;
      uint32_t even = 0, odd = 0;  // int16 lanes: channels (c, c+2) and (c+1, c+3)
      for (; n >= 2; n -= 2) {
        const uint32_t w0 = LoadWord(q);
        const uint32_t w1 = LoadWord(q + C);
        q += 2 * C;
        even = __sxtab16(even, w0);
        odd = Sxtab16Ror8(odd, w0);
        even = __sxtab16(even, w1);
        odd = Sxtab16Ror8(odd, w1);
      }
      if (n > 0) {
        const uint32_t w = LoadWord(q);
        q += C;
        even = __sxtab16(even, w);
        odd = Sxtab16Ror8(odd, w);
      }
      a0 += Lo(even), a2 += Hi(even), a1 += Lo(odd), a3 += Hi(odd);
    }
    mean::Out4(p, a0, a1, a2, a3, zps, out + c);
  }
  for (; c < C; ++c) out[c] = mean::Out(p, mean::ColumnSum(in + c, R, C), zps);
}

}  // namespace

extern "C" void s8_mean__dsp(const s8_mean_params* params, const int8_t* input, int8_t* output) {
  mean::Mean(*params, input, output, SumRun, Columns);
}

#endif  // TF_HAVE_DSP
