// REDUCE_MAX for Cortex-M55 (Helium / MVE), bit-identical to s8_reduce_max__ref: 16 inner
// positions per vector (VMAX down the reduced rows, predicated tail); inner == 1 reduces 16
// contiguous bytes per VMAXV.
#include "kernels/mean/mean.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

extern "C" void s8_reduce_max__mve(const s8_reduce_max_params* params, const int8_t* input,
                                   int8_t* output) {
  const s8_reduce_max_params& p = *params;
  const int32_t R = p.reduce_size, C = p.inner;
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* in = input + o * R * C;
    int8_t* out = output + o * C;
    if (C == 1) {
      int8_t m = -128;
      const int8_t* q = in;
      int32_t r = R;
      for (; r >= 16; r -= 16, q += 16) m = vmaxvq_s8(m, vld1q_s8(q));
      if (r > 0) {
        const mve_pred16_t pr = vctp8q(static_cast<uint32_t>(r));
        m = vmaxvq_p_s8(m, vldrbq_z_s8(q, pr), pr);
      }
      out[0] = m;
      continue;
    }
    for (int32_t c = 0; c < C; c += 16) {
      const mve_pred16_t pr = vctp8q(static_cast<uint32_t>(C - c));
      int8x16_t m = vdupq_n_s8(-128);
      const int8_t* q = in + c;
      for (int32_t r = R; r > 0; --r, q += C) m = vmaxq_m_s8(m, m, vldrbq_z_s8(q, pr), pr);
      vstrbq_p_s8(out + c, m, pr);
    }
  }
}

#endif  // TF_HAVE_MVE
