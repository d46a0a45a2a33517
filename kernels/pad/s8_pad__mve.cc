// PAD for Cortex-M55 (Helium / MVE), bit-identical to s8_pad__ref: the row walk of
// pad_rows.h with 16-byte vector fills and copies, predicated tails.
#include "kernels/pad/pad.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/pad/pad_rows.h"

namespace {

struct VectorRows {
  static void Fill(int8_t* dst, int32_t n, int8_t v) {
    const int8x16_t w = vdupq_n_s8(v);
    int32_t i = 0;
    for (; i + 16 <= n; i += 16) vst1q_s8(dst + i, w);
    if (i < n) vstrbq_p_s8(dst + i, w, vctp8q(static_cast<uint32_t>(n - i)));
  }
  static void Copy(int8_t* dst, const int8_t* src, int32_t n) {
    int32_t i = 0;
    for (; i + 16 <= n; i += 16) vst1q_s8(dst + i, vld1q_s8(src + i));
    if (i < n) {
      const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
      vstrbq_p_s8(dst + i, vldrbq_z_s8(src + i, p), p);
    }
  }
};

}  // namespace

extern "C" void s8_pad__mve(const s8_pad_params* params, const int8_t* input, int8_t* output) {
  tinyforge::pad::Run<VectorRows>(*params, input, output);
}

#endif  // TF_HAVE_MVE
