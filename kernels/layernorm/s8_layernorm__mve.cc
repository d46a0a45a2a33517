// LAYER_NORM / RMS_NORM for Cortex-M55 (Helium / MVE), bit-identical to s8_layernorm__ref.
//
// Row sums: VADDVA and VMLADAVA over 16 bytes (sum and sum of squares into int32). Per four
// elements (int32 lanes): VLDRB.S32; VMLAS (t = q * dl - offset); VRMULH twice (MulHiR by
// the row's rsqrt, then by scale[c]: VRMULH.S32 is round(a * b / 2^32), ties up, exactly);
// VQRSHL by -shift (ShiftR: rounding right or saturating left shift); VQADD of bias[c];
// VRSHR #16 (ties up); clamp; VSTRB.32. Broadcast scale/bias live in registers.
#include "kernels/layernorm/layernorm.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/layernorm/layernorm_row.h"

namespace ln = tinyforge::layernorm;

namespace {

// Four lanes of Element(); the tail (kTail) masks loads and store with `pr`.
template <bool kPerChannel, bool kTail>
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
  t = vqrshlq_s32(t, sh);
  t = vqaddq_s32(t, bi);
  t = vrshrq_n_s32(t, ln::kFracBits);
  t = vminq_s32(vmaxq_s32(t, vdupq_n_s32(-128)), vdupq_n_s32(127));
  if (kTail) {
    vstrbq_p_s32(out, t, pr);
  } else {
    vstrbq_s32(out, t);
  }
}

template <bool kPerChannel>
void Elements(const s8_layernorm_params& p, const ln::Row& row, const int8_t* in, int8_t* out,
              int32_t dl) {
  const int32x4_t rs = vdupq_n_s32(row.rsqrt);
  const int32x4_t sh = vdupq_n_s32(-row.shift);
  const int32x4_t sc = vdupq_n_s32(p.scale[0]);
  const int32x4_t bi = vdupq_n_s32(p.bias[0]);
  const int32x4_t dlv = vdupq_n_s32(dl);
  const int32_t neg_offset = -row.offset;
  const int32_t* scale = p.scale;
  const int32_t* bias = p.bias;
  int32_t n = p.depth;
  for (; n >= 4; n -= 4, in += 4, out += 4) {
    Lanes<kPerChannel, false>(in, out, scale, bias, sc, bi, rs, sh, dlv, neg_offset, 0);
    if (kPerChannel) {
      scale += 4;
      bias += 4;
    }
  }
  if (n > 0) {
    Lanes<kPerChannel, true>(in, out, scale, bias, sc, bi, rs, sh, dlv, neg_offset,
                             vctp32q(static_cast<uint32_t>(n)));
  }
}

}  // namespace

extern "C" void s8_layernorm__mve(const s8_layernorm_params* params, const int8_t* input,
                                  int8_t* output) {
  const s8_layernorm_params& p = *params;
  const int32_t depth = p.depth;
  const int32_t lsh = ln::Headroom(depth);
  const int32_t dl = depth << lsh;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    int8_t* out = output + r * depth;
    int32_t sum = 0, sumsq = 0;
    int32_t c = 0;
    for (; c + 16 <= depth; c += 16) {
      const int8x16_t x = vld1q_s8(in + c);
      sum = vaddvaq_s8(sum, x);
      sumsq = vmladavaq_s8(sumsq, x, x);
    }
    if (c < depth) {
      const mve_pred16_t pr = vctp8q(static_cast<uint32_t>(depth - c));
      const int8x16_t x = vldrbq_z_s8(in + c, pr);  // zeros beyond the row add nothing
      sum = vaddvaq_s8(sum, x);
      sumsq = vmladavaq_s8(sumsq, x, x);
    }
    const ln::Row row = ln::RowOf(p, lsh, sum, sumsq);
    if (p.per_channel) {
      Elements<true>(p, row, in, out, dl);
    } else {
      Elements<false>(p, row, in, out, dl);
    }
  }
}

#endif  // TF_HAVE_MVE
