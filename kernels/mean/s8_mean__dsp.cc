// MEAN / SUM for cores with the DSP extension (Cortex-M4/M7/M33), bit-identical to
// s8_mean__ref.
//
// Four inner positions (channels) per 32-bit word: SXTAB16 adds bytes 0 and 2 of a word into
// two int16 lanes and, rotated by 8, bytes 1 and 3 into two more: one load and two adds per
// four inputs. int16 lanes are exact for 256 rows (|sum| <= 256 * 128), so the rows go in
// chunks of 256 whose lane sums are added into int32. inner == 1 sums four contiguous bytes
// per word the same way. The channel tail is summed bytewise. Single-rounding outputs: one
// SMMLA and a saturating shift each (Fast).
#include "kernels/mean/mean.h"
#include "kernels/common/isa.h"
#include "kernels/common/word.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/mean/mean_out.h"

namespace mean = tinyforge::mean;

namespace {

using tinyforge::LoadWord;
using tinyforge::dsp::Sxtab16Ror8;

inline int32_t Lo(uint32_t v) { return static_cast<int16_t>(v & 0xFFFFu); }
inline int32_t Hi(uint32_t v) { return static_cast<int16_t>(v >> 16); }

constexpr int32_t kChunk = 256;  // rows per int16 accumulation

// Single rounding with shift -n in [-23, -1]: (x * m + 2^(30 + n)) >> (31 + n) + zp is
// SSAT8((Ra + hi32(2x * m)) >> n) with Ra = 2^(n - 1) + zp * 2^n (SMMLA: a floor of a floor;
// |x| <= 255 * reduce_size keeps 2x in int32). Other parameters: mean::Out.
struct Fast {
  const s8_mean_params* p;
  int32_t zps, m, ra, n;
  bool on;
  int8_t Out(int32_t sum) const {
    if (!on) return mean::Out(*p, sum, zps);
    int32_t h;
    __asm__("smmla %0, %1, %2, %3" : "=r"(h) : "r"((sum - zps) * 2), "r"(m), "r"(ra));
    return static_cast<int8_t>(__ssat(h >> n, 8));
  }
};

inline Fast MakeFast(const s8_mean_params& p, int32_t zps) {
  Fast f;
  f.p = &p;
  f.zps = zps;
  f.m = p.multiplier;
  f.n = -p.shift;
  f.on = p.rounding == TF_ROUNDING_SINGLE && f.n >= 1 && f.n <= 23 &&
         p.reduce_size <= (1 << 20);
  f.ra = f.on ? (1 << (f.n - 1)) + p.output_zero_point * (1 << f.n) : 0;
  return f;
}

// Reductions of at most 256 rows, 4 channels per word (int16 lane sums exact), single
// rounding with n = -shift in [0, 17]: per output, with x = sum - zps, Lx = min(17 - n, 14)
// and k = n - 1 + Lx (16 when n >= 3),
//   y = SSAT8((Ra + hi32((x << Lx) * m)) >> k),  Ra = 2^(k - 1) + zp * 2^k
// (a floor of a floor: floor((x * m + 2^(30 + n)) / 2^(31 + n)) + zp, as mean::Out; |x| <=
// 2^16, so x << Lx < 2^31). x << Lx is one SMLABB / SMLATB straight from the lane (2^Lx and
// the lane sum both int16): 4 instructions per output (5 when k is not 16: the shift by
// register), no lane extraction. A global mean of a small map (ResNet's 2x2 x 256, n = 1)
// is the case: its per-channel loop was ~28 instructions per output.
struct Short {
  int32_t sc, cz, m, ra, k;
};

inline bool MakeShort(const s8_mean_params& p, int32_t zps, Short* s) {
  const int32_t n = -p.shift;
  if (p.rounding != TF_ROUNDING_SINGLE || n < 0 || n > 17 || p.reduce_size > kChunk ||
      p.inner < 4) {
    return false;
  }
  const int32_t lx = 17 - n < 14 ? 17 - n : 14;
  s->k = n - 1 + lx;
  s->sc = 1 << lx;
  s->cz = -zps * s->sc;
  s->m = p.multiplier;
  s->ra = (1 << (s->k - 1)) + p.output_zero_point * (1 << s->k);
  return true;
}

template <char kHalf>
inline int32_t Smlaxb(int32_t a, int32_t b, int32_t acc) {
  int32_t r;
  if (kHalf == 'b') {
    __asm__("smlabb %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  } else {
    __asm__("smlatb %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  }
  return r;
}

inline void StoreByte(int8_t* p, int8_t v) { __asm__("strb %1, %0" : "=m"(*p) : "r"(v)); }

// kK16: k == 16 (the shift an immediate), else s.k by register.
template <bool kK16>
inline int8_t ShortOut(const Short& s, int32_t x) {
  int32_t h, y;
  __asm__("smmla %0, %1, %2, %3" : "=r"(h) : "r"(x), "r"(s.m), "r"(s.ra));
  if (kK16) {
    __asm__("ssat %0, #8, %1, asr #16" : "=r"(y) : "r"(h));
  } else {
    y = __ssat(h >> s.k, 8);
  }
  return static_cast<int8_t>(y);
}

// One outer slice: the first C & ~3 channels over R rows (the rest: the caller).
template <bool kK16>
__attribute__((noinline)) void ShortRows(const Short& ss, const int8_t* in, int8_t* out,
                                         int32_t R, int32_t C) {
  const Short s = ss;
  const int32_t pairs = R >> 1;
  for (int32_t c = 0; c + 4 <= C; c += 4) {
    uint32_t even = 0, odd = 0;  // int16 lanes: channels (c, c+2) and (c+1, c+3)
    const int8_t* q = in + c;
    for (int32_t r = pairs; r > 0; --r, q += 2 * C) {
      const uint32_t w0 = LoadWord(q);
      const uint32_t w1 = LoadWord(q + C);
      even = __sxtab16(even, w0);
      odd = Sxtab16Ror8(odd, w0);
      even = __sxtab16(even, w1);
      odd = Sxtab16Ror8(odd, w1);
    }
    if ((R & 1) != 0) {
      const uint32_t w = LoadWord(q);
      even = __sxtab16(even, w);
      odd = Sxtab16Ror8(odd, w);
    }
    const int8_t y0 = ShortOut<kK16>(s, Smlaxb<'b'>(static_cast<int32_t>(even), s.sc, s.cz));
    const int8_t y1 = ShortOut<kK16>(s, Smlaxb<'b'>(static_cast<int32_t>(odd), s.sc, s.cz));
    const int8_t y2 = ShortOut<kK16>(s, Smlaxb<'t'>(static_cast<int32_t>(even), s.sc, s.cz));
    const int8_t y3 = ShortOut<kK16>(s, Smlaxb<'t'>(static_cast<int32_t>(odd), s.sc, s.cz));
    StoreByte(out + c, y0);  // four STRB (GCC would merge them by BFI: more instructions)
    StoreByte(out + c + 1, y1);
    StoreByte(out + c + 2, y2);
    StoreByte(out + c + 3, y3);
  }
}

}  // namespace

extern "C" void s8_mean__dsp(const s8_mean_params* params, const int8_t* input,
                             int8_t* output) {
  const s8_mean_params& p = *params;
  const int32_t zps = mean::ZeroPointSum(p);
  const Fast f = MakeFast(p, zps);
  const int32_t R = p.reduce_size, C = p.inner;
  Short sh;
  const bool short_on = MakeShort(p, zps, &sh);
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* in = input + o * R * C;
    int8_t* out = output + o * C;
    if (C == 1) {
      int32_t total = 0;
      const int8_t* q = in;
      int32_t r = R;
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
      out[0] = f.Out(total);
      continue;
    }
    int32_t c = 0;
    if (short_on) {
      (sh.k == 16 ? ShortRows<true> : ShortRows<false>)(sh, in, out, R, C);
      c = C & ~3;
    }
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
      out[c] = f.Out(a0);
      out[c + 1] = f.Out(a1);
      out[c + 2] = f.Out(a2);
      out[c + 3] = f.Out(a3);
    }
    for (; c < C; ++c) {
      int32_t a = 0;
      const int8_t* q = in + c;
      for (int32_t r = R; r > 0; --r, q += C) a += *q;
      out[c] = f.Out(a);
    }
  }
}

#endif  // TF_HAVE_DSP
