// LAYER_NORM / RMS_NORM for cores with the DSP extension (Cortex-M4/M7/M33), bit-identical
// to s8_layernorm__ref. Row sums four bytes per word (SXTB16 + SMLAD). Per element: SMMULR
// (MulHiR) twice, QADD for the bias, SSAT for the clamp; rows with an output shift left over
// (rare) take the reference step.
#include "kernels/layernorm/layernorm.h"
#include "kernels/common/isa.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/layernorm/layernorm_row.h"

namespace ln = tinyforge::layernorm;

namespace {

inline int32_t Smmulr(int32_t a, int32_t b) {
  int32_t r;
  __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

// neg_offset = -row.offset: t = q * dl + neg_offset is one MLA.
inline int8_t Step(const ln::Row& row, int32_t neg_offset, int32_t q, int32_t scale,
                   int32_t bias) {
  const int32_t o = Smmulr(Smmulr(q * row.dl + neg_offset, row.rsqrt), scale);
  const int32_t v = (__qadd(o, bias) >> (ln::kFracBits - 1)) + 1;  // (x + 2^15) >> 16 without overflow
  return static_cast<int8_t>(__ssat(v >> 1, 8));
}

}  // namespace

extern "C" void s8_layernorm__dsp(const s8_layernorm_params* params, const int8_t* input,
                                  int8_t* output) {
  const s8_layernorm_params& p = *params;
  // Four bytes per word: SXTB16 splits bytes 0/2 and (rotated) 1/3; SMLAD adds them (times
  // 1) and their squares.
  auto sum_row = [](const int8_t* in, int32_t depth, int32_t* sum, int32_t* sumsq) {
    const int8_t* const words_end = in + (depth & ~3);
    const int8_t* const end = in + depth;
    int32_t total = 0, squares = 0;  // locals: int8_t stores may alias *sum for all GCC knows
    while (in != words_end) {
      uint32_t w;
      __builtin_memcpy(&w, in, 4);
      in += 4;
      const int16x2_t even = __sxtb16(w);
      const int16x2_t odd = __sxtb16((w >> 8) | (w << 24));
      total = __smlad(odd, 0x00010001, __smlad(even, 0x00010001, total));
      squares = __smlad(odd, odd, __smlad(even, even, squares));
    }
    for (; in != end; ++in) total += *in, squares += *in * *in;
    *sum = total, *sumsq = squares;
  };
  ln::ForEachRow(p, input, output, sum_row, [&p](const ln::Row& row, const int8_t* in, int8_t* out) {
    const int32_t neg_offset = -row.offset;
    const int32_t depth = p.depth;  // locals: out may alias *params for all GCC knows
    if (row.shift != 0) {
      ln::ElementsOf(p, row, in, out);
    } else if (p.per_channel) {
      const int32_t* scale = p.scale;
      const int32_t* bias = p.bias;
      for (int32_t c = 0; c < depth; ++c) out[c] = Step(row, neg_offset, in[c], scale[c], bias[c]);
    } else {
      const int32_t scale = p.scale[0], bias = p.bias[0];
      for (int32_t c = 0; c < depth; ++c) out[c] = Step(row, neg_offset, in[c], scale, bias);
    }
  });
}

#endif  // TF_HAVE_DSP
