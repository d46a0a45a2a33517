// LAYER_NORM / RMS_NORM for cores with the DSP extension (Cortex-M4/M7/M33), bit-identical
// to s8_layernorm__ref. Row sums four bytes per word (SXTB16 + SMLAD). Per element: LDRSB,
// MLA, SMMULR (MulHiR) twice, QADD for the bias and QADD of 2^15 (one QADD with the
// rounding folded into a broadcast bias), SSAT #8 of v asr 16, STRB; 4 per loop iteration;
// rows with an output shift left over (rare) take the reference step.
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

// neg_offset = -row.offset: t = q * dl + neg_offset is one MLA (GCC 12 made MUL + SUB).
inline int32_t Mla(int32_t a, int32_t b, int32_t c) {
  int32_t r;
  __asm__("mla %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}

// ln::Out's rounding shift and clamp: QADD of 2^15 (where it saturates the result is beyond
// 127 either way), then SSAT #8 of v asr 16. kFolded: bias already holds bias + 2^15 (one
// QADD: sat(o + bias + 2^15) equals sat(sat(o + bias) + 2^15) whenever bias + 2^15 does not
// overflow, as the caller checks).
template <bool kFolded>
inline int8_t Step(const ln::Row& row, int32_t neg_offset, int32_t q, int32_t scale,
                   int32_t bias) {
  const int32_t o = Smmulr(Smmulr(Mla(q, row.dl, neg_offset), row.rsqrt), scale);
  const int32_t v = kFolded ? __qadd(o, bias) : __qadd(__qadd(o, bias), 1 << 15);
  return static_cast<int8_t>(__ssat(v >> 16, 8));
}

template <bool kPerChannel, bool kFolded>
inline void Elements(const ln::Row& row, const int8_t* in, int8_t* out, int32_t depth,
                     const int32_t* scale, const int32_t* bias, int32_t scale0, int32_t bias0) {
  const int32_t neg_offset = -row.offset;
  int32_t c = 0;
  for (; c + 4 <= depth; c += 4) {  // unrolled: the loop's compare and branch once per 4
    for (int32_t i = 0; i < 4; ++i) {
      out[c + i] = Step<kFolded>(row, neg_offset, in[c + i], kPerChannel ? scale[c + i] : scale0,
                                 kPerChannel ? bias[c + i] : bias0);
    }
  }
  for (; c < depth; ++c) {
    out[c] = Step<kFolded>(row, neg_offset, in[c], kPerChannel ? scale[c] : scale0,
                           kPerChannel ? bias[c] : bias0);
  }
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
  const int32_t scale0 = p.scale[0], bias0 = p.bias[0];
  const bool fold = bias0 <= INT32_MAX - (1 << 15);
  ln::ForEachRow(p, input, output, sum_row, [&](const ln::Row& row, const int8_t* in, int8_t* out) {
    const int32_t depth = p.depth;  // locals: out may alias *params for all GCC knows
    if (row.shift != 0) {
      ln::ElementsOf(p, row, in, out);
    } else if (p.per_channel) {
      Elements<true, false>(row, in, out, depth, p.scale, p.bias, 0, 0);
    } else if (fold) {
      Elements<false, true>(row, in, out, depth, nullptr, nullptr, scale0, bias0 + (1 << 15));
    } else {
      Elements<false, false>(row, in, out, depth, nullptr, nullptr, scale0, bias0);
    }
  });
}

#endif  // TF_HAVE_DSP
