// SOFTMAX for Cortex-M55 (MVE), bit-exact with __ref.
//
// Row max with tail-predicated VMAXV over 16 bytes per step; the rest is the shared fast
// core (softmax_fast.h: one exp per element, floor-form SRDHM, sign-aware rounding
// shifts), which is the same gemmlowp fixed-point arithmetic as __ref.
#include "kernels/softmax/softmax.h"

#if defined(__ARM_FEATURE_MVE)

#include <arm_mve.h>

#include "kernels/softmax/softmax_fast.h"

extern "C" void s8_softmax__mve(const s8_softmax_params* params, const int8_t* input,
                                int8_t* output) {
  const s8_softmax_params& p = *params;
  const int32_t depth = p.depth;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    int8_t m = -128;
    for (int32_t c = 0; c < depth; c += 16) {
      const mve_pred16_t pred = vctp8q(static_cast<uint32_t>(depth - c));
      m = vmaxvq_p_s8(m, vld1q_z_s8(in + c, pred), pred);
    }
    tinyforge::softmax_fast::Row(p, in, output + r * depth, m);
  }
}

#endif  // __ARM_FEATURE_MVE
