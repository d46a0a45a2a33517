// LAYER_NORM / RMS_NORM for Cortex-M55 (Helium / MVE), bit-identical to s8_layernorm__ref.
//
// Row sums: VADDVA and VMLADAVA over 16 bytes (sum and sum of squares into int32). Per four
// elements (int32 lanes): VLDRB.S32; VMLAS (t = q * dl - offset); VRMULH twice (MulHiR by
// the row's rsqrt, then by scale[c]: VRMULH.S32 is round(a * b / 2^32), ties up, exactly);
// VQRSHL by -shift only on rows with a shift left over (ShiftR); VQADD of bias[c]; VQRSHRNB
// #16 + VQMOVNB (round ties up, clamp); VSTRB.32. Broadcast scale/bias live in registers.
#include "kernels/layernorm/layernorm.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/layernorm/layernorm_row.h"

namespace ln = tinyforge::layernorm;

namespace {

// Four lanes of Element() (kShift: with ShiftR, else ElementNoShift); the tail (kTail)
// masks loads and store with `pr`. The rounding shift by 16 and the int8 clamp are VQRSHRNB
// (to int16, saturating) and VQMOVNB (to int8, saturating): each value's byte lands in byte 0
// of its 32-bit lane, which VSTRB.32 stores.
template <bool kPerChannel, bool kShift, bool kTail>
inline void Lanes(const int8_t* in, int8_t* out, const int32_t* scale, const int32_t* bias,
                  int32x4_t sc, int32x4_t bi, int32x4_t rs, int32x4_t sh, int32x4_t dl,
                  int32_t neg_offset, mve_pred16_t pr) {
  int32x4_t t = kTail ? vldrbq_z_s32(in, pr) : vldrbq_s32(in);
  t = vmlasq_n_s32(t, dl, neg_offset);
  t = vrmulhq_s32(t, rs);
  if (kPerChannel) {
    sc = kTail ? vldrwq_z_s32(scale, pr) : vldrwq_s32(scale);
    bi = kTail ? vldrwq_z_s32(bias, pr) : vldrwq_s32(bias);
  }
  t = vrmulhq_s32(t, sc);
  if (kShift) t = vqrshlq_s32(t, sh);
  t = vqaddq_s32(t, bi);
  // In place (the odd halves and bytes keep what t had there: never stored); in asm, as
  // the intrinsics' separate "inactive" operand costs two VMOVs per vector.
  static_assert(ln::kFracBits == 16, "the asm below shifts by 16");
  int32x4_t b = t;
  __asm__("vqrshrnb.s32 %q0, %q0, #16\n\tvqmovnb.s16 %q0, %q0" : "+w"(b));
  if (kTail) {
    vstrbq_p_s32(out, b, pr);
  } else {
    vstrbq_s32(out, b);
  }
}

template <bool kPerChannel, bool kShift>
void Elements(const s8_layernorm_params& p, const ln::Row& row, const int8_t* in, int8_t* out) {
  const int32x4_t rs = vdupq_n_s32(row.rsqrt);
  const int32x4_t sh = vdupq_n_s32(-row.shift);
  const int32x4_t sc = vdupq_n_s32(p.scale[0]);
  const int32x4_t bi = vdupq_n_s32(p.bias[0]);
  const int32x4_t dlv = vdupq_n_s32(row.dl);
  const int32_t neg_offset = -row.offset;
  const int32_t* scale = p.scale;
  const int32_t* bias = p.bias;
  int32_t n = p.depth;
  for (; n >= 4; n -= 4, in += 4, out += 4) {
    Lanes<kPerChannel, kShift, false>(in, out, scale, bias, sc, bi, rs, sh, dlv, neg_offset, 0);
    if (kPerChannel) {
      scale += 4;
      bias += 4;
    }
  }
  if (n > 0) {
    Lanes<kPerChannel, kShift, true>(in, out, scale, bias, sc, bi, rs, sh, dlv, neg_offset,
                                     vctp32q(static_cast<uint32_t>(n)));
  }
}

}  // namespace

extern "C" void s8_layernorm__mve(const s8_layernorm_params* params, const int8_t* input,
                                  int8_t* output) {
  const s8_layernorm_params& p = *params;
  auto sum_row = [](const int8_t* in, int32_t depth, int32_t* sum, int32_t* sumsq) {
    int32_t s = 0, ss = 0;
    int32_t c = 0;
    for (; c + 16 <= depth; c += 16) {
      const int8x16_t x = vld1q_s8(in + c);
      s = vaddvaq_s8(s, x);
      ss = vmladavaq_s8(ss, x, x);
    }
    if (c < depth) {
      const mve_pred16_t pr = vctp8q(static_cast<uint32_t>(depth - c));
      const int8x16_t x = vldrbq_z_s8(in + c, pr);  // zeros beyond the row add nothing
      s = vaddvaq_s8(s, x);
      ss = vmladavaq_s8(ss, x, x);
    }
    *sum = s, *sumsq = ss;
  };
  ln::ForEachRow(p, input, output, sum_row, [&p](const ln::Row& row, const int8_t* in, int8_t* out) {
    if (row.shift != 0) {
      if (p.per_channel) {
        Elements<true, true>(p, row, in, out);
      } else {
        Elements<false, true>(p, row, in, out);
      }
    } else if (p.per_channel) {
      Elements<true, false>(p, row, in, out);
    } else {
      Elements<false, false>(p, row, in, out);
    }
  });
}

#endif  // TF_HAVE_MVE
