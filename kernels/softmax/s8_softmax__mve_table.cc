// s8_softmax__mve__table: s8_softmax__mve's calls of kSoftmaxTableMinMve elements or more,
// the exps read from a table (mve_softmax.h), a path linked on demand
// (kernels/common/paths.h, softmax.inc).
#include "kernels/common/isa.h"
#include "kernels/softmax/softmax.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/softmax/mve_softmax.h"
#include "kernels/softmax/softmax_fast.h"

namespace {

using tinyforge::softmax_mve::ExpsOfDiffs;
using tinyforge::softmax_mve::RowMax;

// Calls of kSoftmaxTableMinMve elements or more: the exp table (softmax_fast.h layout,
// table[255 + diff], 0 below diff_min) built with the same lanes as Exps (bit-identical),
// each element's exp one gather load. The gather's base is the row's table[255 - max] and
// its offsets the sign-extended inputs: the address arithmetic is 32-bit, so base + 4 x
// for a negative x is table[255 - max + x] without a subtract per vector.
void FillTable(const s8_softmax_params& p, int32_t* table) {
  const int32x4_t shift = vdupq_n_s32(p.input_left_shift);
  constexpr int32_t kLast = tinyforge::softmax_fast::kTableEntries - 1;
  // Entries below diff_min are 0, the rest exps: from the group of 4 holding 255 + diff_min.
  const int32_t first = p.diff_min < -kLast ? 0 : (kLast + p.diff_min) & ~3;
  for (int32_t i = 0; i < first; i += 4) vst1q_s32(table + i, vdupq_n_s32(0));
  for (int32_t i = first; i <= kLast; i += 4) {
    const int32x4_t diff =
        vsubq_n_s32(vreinterpretq_s32_u32(vidupq_n_u32(static_cast<uint32_t>(i), 1)), kLast);
    const int32x4_t e = ExpsOfDiffs(diff, shift, p.input_multiplier, p.diff_min);
    vst1q_s32(table + i, vmaxq_s32(e, vdupq_n_s32(0)));  // -1 (below diff_min) -> 0
  }
}

}  // namespace

void tinyforge::softmax_mve::s8_softmax__mve__table(const s8_softmax_params& p,
                                                   const int8_t* input, int8_t* output,
                                                   int32_t* table) {
  namespace sf = tinyforge::softmax_fast;
  FillTable(p, table);
  const int32_t depth = p.depth;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    int8_t* out = output + r * depth;
    const int32_t* t = sf::TableAt(table, sf::kTableEntries - 1 - RowMax(in, depth));
    // Rescale<12, 0> of each exp (>= 0) is VRSHR #12.
    uint32_t sum_of_exps = 0;
    for (int32_t c0 = 0; c0 < depth && sum_of_exps < sf::kSumAllZero; c0 += sf::kSumChunk) {
      const int32_t end = depth - c0 < sf::kSumChunk ? depth : c0 + sf::kSumChunk;
      int32_t c = c0;
      for (; c + 4 <= end; c += 4) {
        const uint32x4_t x = vreinterpretq_u32_s32(vldrbq_s32(in + c));
        const int32x4_t e = vldrwq_gather_shifted_offset_s32(t, x);
        sum_of_exps = vaddvaq_u32(sum_of_exps, vrshrq_n_u32(vreinterpretq_u32_s32(e), 12));
      }
      if (c < end) {  // the tail lanes are left out of the sum
        const mve_pred16_t tail = vctp32q(static_cast<uint32_t>(end - c));
        const uint32x4_t x = vreinterpretq_u32_s32(vldrbq_z_s32(in + c, tail));
        const int32x4_t e = vldrwq_gather_shifted_offset_z_s32(t, x, tail);
        sum_of_exps = vaddvaq_p_u32(sum_of_exps, vrshrq_n_u32(vreinterpretq_u32_s32(e), 12), tail);
      }
    }
    if (sf::RowIsAllZero(sum_of_exps)) {
      sf::FillZero(out, depth);
      continue;
    }
    int num_bits_over_unit = 0;
    const int32_t shifted_scale = sf::Reciprocal(sum_of_exps, &num_bits_over_unit);
    // Both operands >= 0: RoundingDivideByPOT is a rounding shift right (VRSHL by -exponent,
    // computed without overflow); an exp of 0 gives 0, -128 out.
    const int32x4_t right = vdupq_n_s32(-(num_bits_over_unit + 31 - 8));  // 23 .. 31
    const int32x4_t max_out = vdupq_n_s32(127);
    auto quotient = [&](int32x4_t e) {
      const uint32x4_t prod = vreinterpretq_u32_s32(vqrdmulhq_n_s32(e, shifted_scale));
      const int32x4_t y = vreinterpretq_s32_u32(vrshlq_u32(prod, right));
      return vminq_s32(vsubq_n_s32(y, 128), max_out);
    };
    int32_t c = 0;
    for (; c + 4 <= depth; c += 4) {
      const uint32x4_t x = vreinterpretq_u32_s32(vldrbq_s32(in + c));
      vstrbq_s32(out + c, quotient(vldrwq_gather_shifted_offset_s32(t, x)));
    }
    if (c < depth) {
      const mve_pred16_t tail = vctp32q(static_cast<uint32_t>(depth - c));
      const uint32x4_t x = vreinterpretq_u32_s32(vldrbq_z_s32(in + c, tail));
      vstrbq_p_s32(out + c, quotient(vldrwq_gather_shifted_offset_z_s32(t, x, tail)), tail);
    }
  }
}

#endif  // TF_HAVE_MVE
