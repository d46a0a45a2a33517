// Shared core of the fast SOFTMAX variants (s8_softmax__scalar / __dsp / __mve), bit-exact
// with s8_softmax__ref (TFLite Micro reference_ops::Softmax<int8_t, int8_t>).
//
// Approach: the same gemmlowp fixed-point arithmetic as __ref, with less work per element:
//   - exp(diff) is computed once per element (kept in a small stack buffer between the sum
//     pass and the output pass) instead of twice; diff == 0 (the row max) is exp = 1
//     without any arithmetic; elements past the buffer are recomputed as __ref does;
//   - SaturatingRoundingDoublingHighMul is (a * b + 2^30) >> 31 in 64 bits: gemmlowp's
//     nudge-and-truncate gives exactly this floor form for every product except
//     INT32_MIN * INT32_MIN, which never occurs here (one operand of every product is a
//     non-negative constant or two values of the same sign, and input_multiplier > 0);
//   - products with one operand that doubles without overflow are one SMMULR
//     ((2a * b + 2^31) >> 32, the same floor form) on DSP cores;
//   - the RoundingDivideByPOT calls on values of known sign become add-and-shift;
//   - the reciprocal of the sum (GetReciprocal's Newton-Raphson) uses the same products.
// A row whose exps sum to 512.0 or more (only rows of more than 512 elements) is all -128,
// as in __ref: every probability is below 1/512 and rounds to 0 (__ref explains it). The
// sum of a long row is checked as it grows, so it never wraps.
// Each variant supplies only the row max (the one loop that vectorises without changing
// any rounding). Calls of many elements read the exps from a table built once per call
// (TableRows; softmax.h).
#ifndef TINYFORGE_KERNELS_SOFTMAX_SOFTMAX_FAST_H_
#define TINYFORGE_KERNELS_SOFTMAX_SOFTMAX_FAST_H_

#include <cstdint>

#include "kernels/common/fixed_point.h"
#include "kernels/common/fixed_point_math.h"
#include "kernels/common/isa.h"
#include "kernels/softmax/softmax.h"

namespace tinyforge::softmax_fast {

// gemmlowp SRDHM for a * b != INT32_MIN * INT32_MIN.
__attribute__((always_inline)) inline int32_t Srdhm(int32_t a, int32_t b) {
  return static_cast<int32_t>((static_cast<int64_t>(a) * b + (int64_t{1} << 30)) >> 31);
}

__attribute__((always_inline)) inline int32_t Add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// Srdhm(a, b) given a2 = 2 * a (no overflow): (a2 * b + 2^31) >> 32, the high word of one
// multiply-accumulate (SMMULR on DSP cores; SMULL + ADDS + ADC on the M3).
__attribute__((always_inline)) inline int32_t SrdhmDoubled(int32_t a2, int32_t b) {
#if TF_HAVE_DSP
  int32_t r;
  __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a2), "r"(b));
  return r;
#else
  return static_cast<int32_t>((static_cast<int64_t>(a2) * b + (int64_t{1} << 31)) >> 32);
#endif
}

// exp(a) for a in Q5.26 (any value, as gemmlowp::exp_on_negative_values<5>), result Q0.
// Products whose one operand doubles without overflow use SrdhmDoubled: x in [-2^28, 2^28),
// x^2 <= 2^25, x + poly small, and the constants 2/3 and exp(-1), exp(-2), ... < 1/2 doubled.
inline int32_t ExpQ5(int32_t a) {
  if (a == 0) return fx::kInt32Max;
  constexpr int32_t kOneQuarter = int32_t{1} << 24;  // 1/4 in Q5
  const int32_t amq = (a & (kOneQuarter - 1)) - kOneQuarter;  // [-1/4, 0)
  // Rescale<0, 5>: amq << 5 cannot saturate ([-2^29, 0)); + 1/8 in Q0.
  const int32_t x = amq * 32 + (int32_t{1} << 28);
  constexpr int32_t kExpMinusOneEighth = 1895147668;
  constexpr int32_t kTwoThirds = 2 * 715827883;  // 1/3 in Q0, doubled
  const int32_t x_2 = x * 2;
  const int32_t x2 = SrdhmDoubled(x_2, x);
  const int32_t x3 = SrdhmDoubled(x_2, x2);
  const int32_t x4 = SrdhmDoubled(x2 * 2, x2);  // >= 0
  const int32_t x4_over_4 = (x4 + 2) >> 2;
  const int32_t v = Add(SrdhmDoubled(kTwoThirds, Add(x4_over_4, x3)), x2);
  const int32_t poly = (v + (v >= 0 ? 1 : 0)) >> 1;  // RoundingDivideByPOT(v, 1)
  int32_t result =
      Add(kExpMinusOneEighth, SrdhmDoubled(Add(x, poly) * 2, kExpMinusOneEighth));
  const uint32_t rem = static_cast<uint32_t>(amq) - static_cast<uint32_t>(a);
  if (rem & (1u << 24)) result = Srdhm(result, 1672461947);
  if (rem & (1u << 25)) result = Srdhm(result, 1302514674);
  if (rem & (1u << 26)) result = SrdhmDoubled(2 * 790015084, result);
  if (rem & (1u << 27)) result = SrdhmDoubled(2 * 290630308, result);
  if (rem & (1u << 28)) result = SrdhmDoubled(2 * 39332535, result);
  if (rem & (1u << 29)) result = SrdhmDoubled(2 * 720401, result);
  if (rem & (1u << 30)) result = SrdhmDoubled(2 * 242, result);
  return result;
}

// exp(beta * in_scale * diff), diff <= 0 (diff >= diff_min checked by the caller).
__attribute__((always_inline)) inline int32_t ExpOfDiff(int32_t diff, int32_t multiplier,
                                                        int left_shift) {
  const int32_t shifted =
      static_cast<int32_t>(static_cast<uint32_t>(diff) << left_shift);  // WrapShiftLeft
  return ExpQ5(Srdhm(shifted, multiplier));
}

// Rescale<12, 0>(e) for e >= 0: round half up (unsigned, e may be INT32_MAX).
__attribute__((always_inline)) inline int32_t RescaleQ12(int32_t e) {
  return static_cast<int32_t>((static_cast<uint32_t>(e) + 2048u) >> 12);
}

// Q12 sums of exps from 2^28 (512.0) on make every output -128: the output shift
// num_bits_over_unit + 23 would be 32 or more and every quotient rounds to 0 (__ref). A sum
// of 0 (no element at or above diff_min: diff_min > 0, outside the contract) is all -128 too.
constexpr uint32_t kSumAllZero = uint32_t{1} << 28;
__attribute__((always_inline)) inline bool RowIsAllZero(uint32_t sum) {
  return sum == 0 || sum >= kSumAllZero;
}
// Cold and out of line: the rows that take it are rare, and inlined it cost the hot path
// 14 to 33 instructions per row.
[[gnu::noinline, gnu::cold]] inline void FillZero(int8_t* out, int32_t depth) {
  for (int32_t c = 0; c < depth; ++c) out[c] = -128;
}

// Srdhm(scale, e) for scale in (0, 2^31), e in [0, 2^31): 2 * scale fits uint32, and
// (2 scale e + 2^31) >> 32 is one unsigned multiply-accumulate (UMLAL).
__attribute__((always_inline)) inline uint32_t SrdhmPositive(uint32_t scale2, int32_t e) {
  return static_cast<uint32_t>((uint64_t{scale2} * static_cast<uint32_t>(e) + (uint64_t{1} << 31)) >>
                               32);
}

// 1 / sum for the Q12 sum of exps (tflite::GetReciprocal(sum, 12, &num_bits_over_unit) with
// gemmlowp's one_over_one_plus_x_for_x_in_0_1), for 0 < sum < 2^28 (the output shift
// num_bits_over_unit + 23 stays <= 31). Every product has a positive operand, so the
// floor-form SRDHM is exact, and each is one instruction where an operand doubles without
// overflow: the constant -32/17 (doubled, -2^31 < -2021161080), one_minus (|.| <= 2^29:
// half_denominator * x is within [0, 2^30] in Q2); half_denominator * x (both positive,
// half_denominator < 2^31) is the unsigned form. Srdhm(x, one_minus) is within 2^28 in
// magnitude, so its multiplication by 4 cannot saturate.
inline int32_t Reciprocal(uint32_t sum, int* num_bits_over_unit) {
  const int headroom_plus_one = __builtin_clz(sum);  // 4 .. 12
  *num_bits_over_unit = 12 - headroom_plus_one;
  // a = (sum << headroom) - 1 in Q0, in [0, 1); RoundingHalfSum(a, INT32_MAX) =
  // (a + INT32_MAX + 1) / 2, truncating, of a non-negative value.
  const uint32_t a = (sum << headroom_plus_one) - 0x80000000u;
  const int32_t half_denominator = static_cast<int32_t>((a + 0x80000000u) >> 1);  // no carry
  const uint32_t half_denominator2 = static_cast<uint32_t>(half_denominator) * 2u;
  // 48/17 - 32/17 d in Q2: x in [2^28.9, 2^29.9], positive from here on.
  int32_t x = Add(1515870810, SrdhmDoubled(2 * -1010580540, half_denominator));
  for (int i = 0; i < 3; ++i) {
    const int32_t one_minus = static_cast<int32_t>(
        static_cast<uint32_t>(int32_t{1} << 29) - SrdhmPositive(half_denominator2, x));
    x = Add(x, SrdhmDoubled(one_minus * 2, x) * 4);
  }
  return fx::SaturatingRoundingMultiplyByPOT<1>(x);  // Q2 read as Q1 (halved), to Q0
}

constexpr int32_t kBuffered = 32;  // exps kept per row (128 B of stack)

// One row, given its max.
// Out of line, as it was when long rows called __ref: inlined into s8_softmax__dsp it cost
// 7 to 18 instructions more per row.
[[gnu::noinline]] inline void Row(const s8_softmax_params& p, const int8_t* in, int8_t* out,
                                  int32_t max_in_row) {
  const int32_t depth = p.depth, mult = p.input_multiplier, diff_min = p.diff_min;
  const int shift = static_cast<int>(p.input_left_shift);
  int32_t exps[kBuffered];
  const int32_t buffered = depth < kBuffered ? depth : kBuffered;

  uint32_t sum_of_exps = 0;  // Q12; each exp adds at most 2^19
  for (int32_t c = 0; c < buffered; ++c) {
    const int32_t diff = in[c] - max_in_row;
    int32_t e = -1;  // marks "below diff_min"
    if (diff >= diff_min) {
      e = diff == 0 ? fx::kInt32Max : ExpOfDiff(diff, mult, shift);
      sum_of_exps += static_cast<uint32_t>(RescaleQ12(e));
    }
    exps[c] = e;
  }
  // Past the buffer, stop once the sum reaches kSumAllZero (it then stays below 2^29).
  for (int32_t c = buffered; c < depth && sum_of_exps < kSumAllZero; ++c) {
    const int32_t diff = in[c] - max_in_row;
    if (diff >= diff_min) {
      const int32_t e = diff == 0 ? fx::kInt32Max : ExpOfDiff(diff, mult, shift);
      sum_of_exps += static_cast<uint32_t>(RescaleQ12(e));
    }
  }

  if (RowIsAllZero(sum_of_exps)) {
    FillZero(out, depth);
    return;
  }
  int num_bits_over_unit = 0;
  const int32_t shifted_scale = Reciprocal(sum_of_exps, &num_bits_over_unit);
  const int exponent = num_bits_over_unit + 31 - 8;  // 23 .. 31
  const uint32_t round = uint32_t{1} << (exponent - 1);

  auto emit = [&](int32_t e) -> int8_t {
    if (e < 0) return -128;
    // Both operands >= 0: RoundingDivideByPOT is add-half-and-shift.
    const int32_t y =
        static_cast<int32_t>((static_cast<uint32_t>(Srdhm(shifted_scale, e)) + round) >> exponent) -
        128;
    return static_cast<int8_t>(y > 127 ? 127 : y);
  };
  for (int32_t c = 0; c < buffered; ++c) out[c] = emit(exps[c]);
  for (int32_t c = buffered; c < depth; ++c) {
    const int32_t diff = in[c] - max_in_row;
    int32_t e = -1;
    if (diff >= diff_min) e = diff == 0 ? fx::kInt32Max : ExpOfDiff(diff, mult, shift);
    out[c] = emit(e);
  }
}

// ---- The exp table (softmax.h): calls of many elements ------------------------------------
//
// table[255 + diff] for diff in [-255, 0]: the exp of diff, or 0 below diff_min. An exp of 0
// adds 0 to the sum and gives -128 out, as an excluded element does, so the table needs no
// marker and the row loops no test.
constexpr int32_t kTableEntries = 256;

// The exp of every diff at or above diff_min (at most 256 exps, once per call).
inline void FillTable(const s8_softmax_params& p, int32_t* table) {
  const int shift = static_cast<int>(p.input_left_shift);
  for (int32_t i = 0; i < kTableEntries; ++i) {
    const int32_t diff = i - (kTableEntries - 1);
    table[i] = diff < p.diff_min ? 0
               : diff == 0      ? fx::kInt32Max
                                : ExpOfDiff(diff, p.input_multiplier, shift);
  }
}

// The address of table[off] for off in [128, 383] (off = 255 - row max): off may pass the end
// of the table, every element read (off + x, x an input of the row) is inside it.
__attribute__((always_inline)) inline const int32_t* TableAt(const int32_t* table, int32_t off) {
  return reinterpret_cast<const int32_t*>(reinterpret_cast<uintptr_t>(table) +
                                          static_cast<uint32_t>(off) * 4u);
}

// Rows are summed in chunks of this many elements, the sum checked against kSumAllZero
// between chunks: below 2^28 before a chunk, at most 2^31 added, so it never wraps.
constexpr int32_t kSumChunk = 4096;

// Every row through the table (scratch: kTableEntries int32), given the row max function.
template <class RowMaxFn>
inline void TableRows(const s8_softmax_params& p, const int8_t* input, int8_t* output,
                      int32_t* table, RowMaxFn row_max) {
  FillTable(p, table);
  const int32_t depth = p.depth;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    int8_t* out = output + r * depth;
    const int32_t* t = TableAt(table, kTableEntries - 1 - row_max(in, depth));  // t[x]
    uint32_t sum_of_exps = 0;
    for (int32_t c0 = 0; c0 < depth && sum_of_exps < kSumAllZero; c0 += kSumChunk) {
      const int32_t end = depth - c0 < kSumChunk ? depth : c0 + kSumChunk;
      for (int32_t c = c0; c < end; ++c) sum_of_exps += static_cast<uint32_t>(RescaleQ12(t[in[c]]));
    }
    if (RowIsAllZero(sum_of_exps)) {
      FillZero(out, depth);
      continue;
    }
    int num_bits_over_unit = 0;
    const int32_t shifted_scale = Reciprocal(sum_of_exps, &num_bits_over_unit);
    const uint32_t scale2 = static_cast<uint32_t>(shifted_scale) * 2u;
    const int exponent = num_bits_over_unit + 31 - 8;  // 23 .. 31
    const uint32_t round = uint32_t{1} << (exponent - 1);
    for (int32_t c = 0; c < depth; ++c) {
      // Both operands >= 0: RoundingDivideByPOT is add-half-and-shift (no carry out: the
      // product is below 2^31). q in [0, 256]; clamped to [0, 255] (one USAT) before the
      // -128 offset.
      const int32_t q =
          static_cast<int32_t>((SrdhmPositive(scale2, t[in[c]]) + round) >> exponent);
      out[c] = static_cast<int8_t>((q < 0 ? 0 : q > 255 ? 255 : q) - 128);
    }
  }
}

}  // namespace tinyforge::softmax_fast

#endif  // TINYFORGE_KERNELS_SOFTMAX_SOFTMAX_FAST_H_
