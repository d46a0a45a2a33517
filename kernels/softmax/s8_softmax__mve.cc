// SOFTMAX for Cortex-M55 (MVE), bit-exact with __ref.
//
// Four elements per vector, tail-predicated: the row max with VMAXV over 16 bytes per step,
// then exp(diff) in int32x4 lanes with the same gemmlowp arithmetic as __ref. VQRDMULH is
// exactly gemmlowp's SaturatingRoundingDoublingHighMul (the NEON path uses it too), the
// exp's barrel-shifter steps are predicated VQRDMULHs, the rounding shifts are written out
// for the operand signs that occur (RoundingDivideByPOT(v, 1) rounds ties away from zero,
// unlike VRSHR, so it is (v + 1 + (v >> 31)) >> 1). Exps of the first kBuffered elements
// are kept on the stack between the sum and the output pass; longer rows recompute the
// rest. Rows of 1 or 2 elements take the scalar core (one exp at most) and calls of
// kSoftmaxTableMinMve elements or more read the exps from a table: paths linked on demand
// (mve_softmax.h). A row whose exps sum to 512.0 or more is all -128 (softmax_fast.h explains
// why).
#include "kernels/softmax/softmax.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/softmax/mve_softmax.h"
#include "kernels/softmax/softmax_fast.h"

namespace {

using tinyforge::softmax_mve::Exps;

constexpr int32_t kBuffered = 32;  // multiple of 4

void Row(const s8_softmax_params& p, const int8_t* in, int8_t* out, int32_t max_in_row) {
  const int32_t depth = p.depth, mult = p.input_multiplier, diff_min = p.diff_min;
  const int32x4_t shift = vdupq_n_s32(p.input_left_shift);
  int32_t exps[kBuffered];

  // Rescale<12, 0> of four exps: (e + 2^11) >> 12 unsigned (e may be INT32_MAX), summed
  // into `sum` (Q12, each exp at most 2^19) skipping e = -1 and lanes past the row.
#define TF_SOFTMAX_ACCUMULATE(sum, e, tail)                                                   \
  sum = vaddvaq_p_u32(sum, vshrq_n_u32(vaddq_n_u32(vreinterpretq_u32_s32(e), 2048u), 12), \
                      vcmpgeq_m_n_s32(e, 0, tail))
  uint32_t sum_of_exps = 0;
  const int32_t buffered = depth < kBuffered ? depth : kBuffered;
  int32_t c = 0;
  for (; c < buffered; c += 4) {
    const mve_pred16_t tail = vctp32q(static_cast<uint32_t>(depth - c));
    const int32x4_t e = Exps(in + c, tail, max_in_row, shift, mult, diff_min);
    vst1q_s32(exps + c, e);
    TF_SOFTMAX_ACCUMULATE(sum_of_exps, e, tail);
  }
  // Past the buffer, stop once the sum reaches kSumAllZero (it then stays below 2^29).
  for (; c < depth && sum_of_exps < tinyforge::softmax_fast::kSumAllZero; c += 4) {
    const mve_pred16_t tail = vctp32q(static_cast<uint32_t>(depth - c));
    const int32x4_t e = Exps(in + c, tail, max_in_row, shift, mult, diff_min);
    TF_SOFTMAX_ACCUMULATE(sum_of_exps, e, tail);
  }
#undef TF_SOFTMAX_ACCUMULATE

  if (tinyforge::softmax_fast::RowIsAllZero(sum_of_exps)) {
    tinyforge::softmax_fast::FillZero(out, depth);
    return;
  }
  int num_bits_over_unit = 0;
  const int32_t shifted_scale =
      tinyforge::softmax_fast::Reciprocal(sum_of_exps, &num_bits_over_unit);
  const int exponent = num_bits_over_unit + 31 - 8;  // 23 .. 31
  const uint32_t round = uint32_t{1} << (exponent - 1);
  const int32x4_t right = vdupq_n_s32(-exponent);

  for (int32_t c = 0; c < depth; c += 4) {
    const mve_pred16_t tail = vctp32q(static_cast<uint32_t>(depth - c));
    const int32x4_t e = c < kBuffered ? vld1q_s32(exps + c)
                                      : Exps(in + c, tail, max_in_row, shift, mult, diff_min);
    // Both operands >= 0: RoundingDivideByPOT is add-half-and-shift (unsigned: no overflow).
    const uint32x4_t prod = vreinterpretq_u32_s32(vqrdmulhq_n_s32(e, shifted_scale));
    int32x4_t y = vreinterpretq_s32_u32(vshlq_u32(vaddq_n_u32(prod, round), right));
    y = vminq_s32(vsubq_n_s32(y, 128), vdupq_n_s32(127));
    y = vpselq_s32(y, vdupq_n_s32(-128), vcmpgeq_n_s32(e, 0));
    vstrbq_p_s32(out + c, y, tail);
  }
}

}  // namespace

// Every row with each exp computed: any call (what the dispatcher runs when a path is not
// linked; the variant tests run it alone as s8_softmax__mve__rows).
void tinyforge::softmax_mve::Rows(const s8_softmax_params& p, const int8_t* input,
                                  int8_t* output) {
  const int32_t depth = p.depth;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    int8_t m = -128;
    for (int32_t c = 0; c < depth; c += 16) {
      const mve_pred16_t pred = vctp8q(static_cast<uint32_t>(depth - c));
      m = vmaxvq_p_s8(m, vld1q_z_s8(in + c, pred), pred);
    }
    Row(p, in, output + r * depth, m);
  }
}

extern "C" void s8_softmax__mve(const s8_softmax_params* params, const int8_t* input,
                                int8_t* output, void* scratch) {
  const s8_softmax_params& p = *params;
  const int32_t depth = p.depth;
  // The paths (mve_softmax.h); one not linked leaves its calls to the rows below.
  using tinyforge::softmax_mve::s8_softmax__mve__short;
  using tinyforge::softmax_mve::s8_softmax__mve__table;
  if (depth <= 2 && s8_softmax__mve__short != nullptr) {
    s8_softmax__mve__short(p, input, output);
    return;
  }
  if (s8_softmax__mve__table != nullptr && s8_softmax_table_bytes(p, kSoftmaxTableMinMve) > 0) {
    s8_softmax__mve__table(p, input, output, static_cast<int32_t*>(scratch));
    return;
  }
  tinyforge::softmax_mve::Rows(p, input, output);
}

#endif  // TF_HAVE_MVE
