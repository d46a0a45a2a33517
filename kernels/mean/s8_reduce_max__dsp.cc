// REDUCE_MAX for cores with the DSP extension (Cortex-M4/M7/M33), bit-identical to
// s8_reduce_max__ref: four inner positions per word, SSUB8 + SEL keeps the larger signed
// byte of each lane (one load and two instructions per four inputs); inner == 1 scans words
// of contiguous bytes the same way and reduces the four lanes at the end. Tails bytewise.
#include "kernels/mean/mean.h"
#include "kernels/common/isa.h"
#include "kernels/common/word.h"

#if TF_HAVE_DSP

namespace {

using tinyforge::LoadWord;
using tinyforge::dsp::Max4;

inline int8_t Byte(uint32_t w, int k) { return static_cast<int8_t>(w >> (8 * k)); }
inline int32_t Max(int32_t a, int32_t b) { return a > b ? a : b; }

}  // namespace

extern "C" void s8_reduce_max__dsp(const s8_reduce_max_params* params, const int8_t* input,
                                   int8_t* output) {
  const s8_reduce_max_params& p = *params;
  const int32_t R = p.reduce_size, C = p.inner;
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* in = input + o * R * C;
    int8_t* out = output + o * C;
    if (C == 1) {
      uint32_t m = 0x80808080u;
      const int8_t* q = in;
      int32_t r = R;
      for (; r >= 4; r -= 4, q += 4) m = Max4(LoadWord(q), m);
      int32_t best = Max(Max(Byte(m, 0), Byte(m, 1)), Max(Byte(m, 2), Byte(m, 3)));
      for (; r > 0; --r) best = Max(best, *q++);
      out[0] = static_cast<int8_t>(best);
      continue;
    }
    int32_t c = 0;
    for (; c + 4 <= C; c += 4) {
      uint32_t m = 0x80808080u;
      const int8_t* q = in + c;
      for (int32_t r = R; r > 0; --r, q += C) m = Max4(LoadWord(q), m);
      __builtin_memcpy(out + c, &m, 4);
    }
    for (; c < C; ++c) {
      int32_t m = -128;
      const int8_t* q = in + c;
      for (int32_t r = R; r > 0; --r, q += C) m = Max(m, *q);
      out[c] = static_cast<int8_t>(m);
    }
  }
}

#endif  // TF_HAVE_DSP
