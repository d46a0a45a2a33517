// SOFTMAX for Cortex-M55 (MVE), bit-exact with __ref.
//
// Four elements per vector, tail-predicated: the row max with VMAXV over 16 bytes per step,
// then exp(diff) in int32x4 lanes with the same gemmlowp arithmetic as __ref. VQRDMULH is
// exactly gemmlowp's SaturatingRoundingDoublingHighMul (the NEON path uses it too), the
// exp's barrel-shifter steps are predicated VQRDMULHs, the rounding shifts are written out
// for the operand signs that occur (RoundingDivideByPOT(v, 1) rounds ties away from zero,
// unlike VRSHR, so it is (v + 1 + (v >> 31)) >> 1). Exps of the first kBuffered elements
// are kept on the stack between the sum and the output pass; longer rows recompute the
// rest. Rows of 1 or 2 elements take the scalar core (one exp at most). Calls of
// kSoftmaxTableMinMve elements or more read the exps from a table (TableRows). A row whose
// exps sum to 512.0 or more is all -128 (softmax_fast.h explains why).
#include "kernels/softmax/softmax.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/softmax/softmax_fast.h"

namespace {

constexpr int32_t kBuffered = 32;  // multiple of 4

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

[[gnu::noinline]] void TableRows(const s8_softmax_params& p, const int8_t* input,
                                 int8_t* output, int32_t* table) {
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

}  // namespace

extern "C" void s8_softmax__mve(const s8_softmax_params* params, const int8_t* input,
                                int8_t* output, void* scratch) {
  const s8_softmax_params& p = *params;
  const int32_t depth = p.depth;
  if (depth <= 2) {
    // At most one exp that is not exp(0): the scalar core skips the vector set-up.
    for (int32_t r = 0; r < p.rows; ++r) {
      const int8_t* in = input + r * depth;
      const int32_t m = depth == 2 && in[1] > in[0] ? in[1] : in[0];
      tinyforge::softmax_fast::Row(p, in, output + r * depth, m);
    }
    return;
  }
  if (s8_softmax_table_bytes(p, kSoftmaxTableMinMve) > 0) {
    TableRows(p, input, output, static_cast<int32_t*>(scratch));
    return;
  }
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

#endif  // TF_HAVE_MVE
