// Internal header of s8_softmax__mve (Helium): the exps of four lanes and the row max, shared
// by the dispatcher (s8_softmax__mve.cc: rows of 3 or more elements, each exp computed) and
// its paths, linked on demand (kernels/common/paths.h, softmax.inc; docs/decisions.md 74):
//   s8_softmax__mve__table  s8_softmax__mve_table.cc  calls of kSoftmaxTableMinMve elements or
//                                                     more: the exps from a table (scratch)
//   s8_softmax__mve__short  s8_softmax__mve_short.cc  rows of 1 or 2 elements: the scalar core
// A path that is not linked leaves its calls to the dispatcher's own rows (the same
// results). Only included inside `#if TF_HAVE_MVE` (kernels/common/isa.h).
#ifndef TINYFORGE_KERNELS_SOFTMAX_MVE_SOFTMAX_H_
#define TINYFORGE_KERNELS_SOFTMAX_MVE_SOFTMAX_H_

#include <arm_mve.h>

#include <cstdint>

#include "kernels/common/paths.h"
#include "kernels/softmax/softmax.h"

namespace tinyforge::softmax_mve {

// exp(a) for a in Q5.26, Q0 result (gemmlowp::exp_on_negative_values<5>), per lane.
__attribute__((always_inline)) inline int32x4_t ExpQ5(int32x4_t a) {
  constexpr int32_t kOneQuarter = int32_t{1} << 24;
  const int32x4_t amq = vsubq_n_s32(vandq_s32(a, vdupq_n_s32(kOneQuarter - 1)), kOneQuarter);
  const int32x4_t x = vaddq_n_s32(vshlq_n_s32(amq, 5), int32_t{1} << 28);
  const int32x4_t x2 = vqrdmulhq_s32(x, x);
  const int32x4_t x3 = vqrdmulhq_s32(x2, x);
  const int32x4_t x4 = vqrdmulhq_s32(x2, x2);
  const int32x4_t x4_over_4 = vshrq_n_s32(vaddq_n_s32(x4, 2), 2);  // x4 >= 0
  const int32x4_t v = vaddq_s32(vqrdmulhq_n_s32(vaddq_s32(x4_over_4, x3), 715827883), x2);
  const int32x4_t poly = vshrq_n_s32(vaddq_s32(v, vaddq_n_s32(vshrq_n_s32(v, 31), 1)), 1);
  int32x4_t result = vaddq_n_s32(vqrdmulhq_n_s32(vaddq_s32(x, poly), 1895147668), 1895147668);
  const int32x4_t rem = vsubq_s32(amq, a);
  // Bit `bit` of rem moved to the sign (GCC 12 ICEs on VAND + VCMP NE here).
#define TF_SOFTMAX_BARREL(bit, c)                                                  \
  result = vqrdmulhq_m_n_s32(result, result, (c),                                 \
                             vcmpltq_n_s32(vshlq_n_s32(rem, 31 - (bit)), 0))
  TF_SOFTMAX_BARREL(24, 1672461947);
  TF_SOFTMAX_BARREL(25, 1302514674);
  TF_SOFTMAX_BARREL(26, 790015084);
  TF_SOFTMAX_BARREL(27, 290630308);
  TF_SOFTMAX_BARREL(28, 39332535);
  TF_SOFTMAX_BARREL(29, 720401);
  TF_SOFTMAX_BARREL(30, 242);
#undef TF_SOFTMAX_BARREL
  return vpselq_s32(vdupq_n_s32(0x7FFFFFFF), result, vcmpeqq_n_s32(a, 0));
}

// exps of four diffs (<= 0), -1 where diff < diff_min.
__attribute__((always_inline)) inline int32x4_t ExpsOfDiffs(int32x4_t diff, int32x4_t shift,
                                                            int32_t mult, int32_t diff_min) {
  const int32x4_t e = ExpQ5(vqrdmulhq_n_s32(vshlq_s32(diff, shift), mult));
  return vpselq_s32(e, vdupq_n_s32(-1), vcmpgeq_n_s32(diff, diff_min));
}

// exps of in[c .. c+3] (lanes past the row are don't-care), -1 where diff < diff_min.
__attribute__((always_inline)) inline int32x4_t Exps(const int8_t* in, mve_pred16_t tail,
                                                     int32_t max_in_row, int32x4_t shift,
                                                     int32_t mult, int32_t diff_min) {
  return ExpsOfDiffs(vsubq_n_s32(vldrbq_z_s32(in, tail), max_in_row), shift, mult, diff_min);
}

// The row max: 16 bytes per VMAXV, unpredicated but for the last partial vector (GCC moves
// every predicate through a core register: four instructions per predicated operation).
__attribute__((always_inline)) inline int32_t RowMax(const int8_t* in, int32_t depth) {
  int8_t m = -128;
  int32_t c = 0;
  for (; c + 16 <= depth; c += 16) m = vmaxvq_s8(m, vld1q_s8(in + c));
  if (c < depth) {
    const mve_pred16_t pred = vctp8q(static_cast<uint32_t>(depth - c));
    m = vmaxvq_p_s8(m, vld1q_z_s8(in + c, pred), pred);
  }
  return m;
}

// Every row of a call with each exp computed (s8_softmax__mve.cc): the dispatcher's own rows.
void Rows(const s8_softmax_params& p, const int8_t* input, int8_t* output);

// The paths (null when not linked).
extern "C" {
void s8_softmax__mve__table(const s8_softmax_params& p, const int8_t* input, int8_t* output,
                            int32_t* table) TF_PATH_WEAK;
void s8_softmax__mve__short(const s8_softmax_params& p, const int8_t* input,
                            int8_t* output) TF_PATH_WEAK;
}

}  // namespace tinyforge::softmax_mve

#endif  // TINYFORGE_KERNELS_SOFTMAX_MVE_SOFTMAX_H_
