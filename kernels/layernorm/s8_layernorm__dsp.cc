// LAYER_NORM / RMS_NORM for cores with the DSP extension (Cortex-M4/M7/M33), bit-identical
// to s8_layernorm__ref. Row sums four bytes per word: SXTB16 splits bytes 0/2 and (rotated)
// 1/3 into int16 pairs; SMLAD adds the pairs (times 1) into sum and their squares into
// sumsq. Per element: SMMULR (MulHiR) twice, QADD for the bias, SSAT for the clamp; rows
// with an output shift left over (rare) take the reference step.
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
  const int32_t depth = p.depth;
  const int32_t lsh = ln::Headroom(depth);
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    int8_t* out = output + r * depth;
    int32_t sum = 0, sumsq = 0;
    int32_t c = 0;
    for (; c + 4 <= depth; c += 4) {
      uint32_t w;
      __builtin_memcpy(&w, in + c, 4);
      const int16x2_t even = __sxtb16(w);
      const int16x2_t odd = __sxtb16((w >> 8) | (w << 24));
      sum = __smlad(even, 0x00010001, sum);
      sum = __smlad(odd, 0x00010001, sum);
      sumsq = __smlad(even, even, sumsq);
      sumsq = __smlad(odd, odd, sumsq);
    }
    for (; c < depth; ++c) {
      sum += in[c];
      sumsq += in[c] * in[c];
    }
    const ln::Row row = ln::RowOf(p, lsh, sum, sumsq);
    if (row.shift != 0) {  // the output shift not all taken out of t: the reference step
      for (c = 0; c < depth; ++c) {
        const int32_t k = p.per_channel ? c : 0;
        out[c] = ln::Element(row, in[c], p.scale[k], p.bias[k]);
      }
    } else if (p.per_channel) {
      const int32_t* scale = p.scale;  // locals: out may alias *params for all GCC knows
      const int32_t* bias = p.bias;
      const int32_t neg_offset = -row.offset;
      for (c = 0; c < depth; ++c) out[c] = Step(row, neg_offset, in[c], scale[c], bias[c]);
    } else {
      const int32_t scale = p.scale[0], bias = p.bias[0];
      const int32_t neg_offset = -row.offset;
      for (c = 0; c < depth; ++c) out[c] = Step(row, neg_offset, in[c], scale, bias);
    }
  }
}

#endif  // TF_HAVE_DSP
