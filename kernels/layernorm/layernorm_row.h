// The integer arithmetic of one layer_norm / rms_norm row, shared by every variant (the
// variants differ only in how they sum a row and run the per-element steps; all of them
// produce exactly these values). docs/numerics.md "Layer norm" states it in full.
// Freestanding C++17: no float, every shift amount in [0, 31] (or 63 for uint64).
#ifndef TINYFORGE_KERNELS_LAYERNORM_LAYERNORM_ROW_H_
#define TINYFORGE_KERNELS_LAYERNORM_LAYERNORM_ROW_H_

#include <cstdint>

#include "kernels/layernorm/layernorm.h"

namespace tinyforge::layernorm {

// Fraction bits of the output before the bias is added and the result rounded.
inline constexpr int32_t kFracBits = 16;

// lsh: the largest shift with 255 * depth * 2^lsh <= INT32_MAX, so t = q * depth * 2^lsh -
// offset (|t| <= 255 * depth * 2^lsh) fits int32. depth <= 2^15 gives lsh >= 8.
inline int32_t Headroom(int32_t depth) {
  return __builtin_clz(static_cast<uint32_t>(255 * depth)) - 1;  // 255 * depth >= 255: <= 23
}

// round(a * b / 2^32), ties up: Arm's SMMULR and Helium's VRMULH.S32. Never overflows.
inline int32_t MulHiR(int32_t a, int32_t b) {
  return static_cast<int32_t>((int64_t{a} * b + (int64_t{1} << 31)) >> 32);
}

inline int32_t Sat32(int64_t v) {
  return static_cast<int32_t>(v > INT32_MAX ? INT32_MAX : (v < INT32_MIN ? INT32_MIN : v));
}

// v / 2^s rounded (ties up) for s in [1, 31], saturated v * 2^-s for s in [-31, 0]:
// Helium's VQRSHL.S32 by -s.
inline int32_t ShiftR(int32_t v, int32_t s) {
  if (s > 0) return static_cast<int32_t>((int64_t{v} + (int64_t{1} << (s - 1))) >> s);
  return Sat32(int64_t{v} * (int64_t{1} << -s));
}

// The output of o (the normalized value times scale, 2^kFracBits per output step) plus
// bias: saturating add, rounding shift (ties up), clamp to int8.
inline int8_t Out(int32_t o, int32_t bias) {
  const int32_t v = static_cast<int32_t>(
      (int64_t{Sat32(int64_t{o} + bias)} + (int32_t{1} << (kFracBits - 1))) >> kFracBits);
  return static_cast<int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
}

// 1/sqrt(w) in Q30 for w = w32 / 2^30 in [1, 4): a 48-entry table over w's top bits
// (round(2^30 / sqrt((i + 16.5) / 16)), relative error < 1.6%) and two Newton steps
// y <- y * (3 - w * y^2) / 2 (each squares the error: < 2e-7 after two; the result is never
// above 2^30 / sqrt(w)). Every product is 32 x 32 -> 64 bits (UMULL).
inline constexpr uint32_t kRsqrtGuess[48] = {
      1057347856, 1026693558, 998559613, 972618566, 948599586, 926276469, 905458609, 885984104,
      867714429,  850530263,  834328203, 819018128, 804521086, 790767575, 777696137, 765252196,
      753387102,  742057327,  731223792, 720851298, 710908045, 701365222, 692196655, 683378504,
      674889000,  666708225,  658817909, 651201261, 643842818, 636728315, 629844563, 623179354,
      616721362,  610460069,  604385689, 598489102, 592761802, 587195840, 581783781, 576518662,
      571393950,  566403514,  561541591, 556802759, 552181909, 547674226, 543275165, 538980433};

inline uint32_t RsqrtQ30(uint32_t w32) {
  uint32_t y = kRsqrtGuess[(w32 >> 26) - 16];
  for (int i = 0; i < 2; ++i) {
    const auto y2 = static_cast<uint32_t>((uint64_t{y} * y) >> 30);     // Q30, <= 2^30
    const auto wy2 = static_cast<uint32_t>((uint64_t{w32} * y2) >> 30); // Q30, near 2^30
    y = static_cast<uint32_t>((uint64_t{y} * ((uint32_t{3} << 30) - wy2)) >> 31);
  }
  return y;
}

// The per-row constants: t = q * dl - offset; o = ShiftR(MulHiR(MulHiR(t, rsqrt), scale), shift).
struct Row {
  int32_t dl;      // depth * 2^lrow, lrow = lsh minus the part of the shift taken out of t
  int32_t offset;  // layer_norm: sum * 2^lrow; rms_norm: zp * dl
  int32_t rsqrt;   // 0 when the row's normalized values are all 0 (or below the output's reach)
  int32_t shift;   // what is left of the output shift, in [-31, 31]; 0 on most rows
};

// RowOf without the reciprocal square root: *w32 gets its argument (RsqrtQ30(*w32) is the
// row's rsqrt), 0 when the row needs none (r.rsqrt stays 0). The MVE variant runs the
// square roots of 4 rows at once.
inline Row RowPrep(const s8_layernorm_params& p, int32_t lsh, int32_t sum, int32_t sumsq,
                   uint32_t* w32_out) {
  *w32_out = 0;
  const int32_t d = p.depth;
  const int32_t zp = p.input_zero_point;
  uint64_t m2;
  if (p.rms) {
    // sum (q - zp)^2 <= 65025 * 2^15 < 2^31; times depth < 2^46.
    const auto sxx = static_cast<uint32_t>(int64_t{sumsq} - 2 * int64_t{zp} * sum +
                                           int64_t{d} * zp * zp);
    m2 = uint64_t{static_cast<uint32_t>(d)} * sxx;
  } else {
    m2 = static_cast<uint64_t>(int64_t{d} * sumsq - int64_t{sum} * sum);  // D^2 var, < 2^44
  }
  const uint64_t eps16 = (uint64_t{static_cast<uint32_t>(p.eps_hi)} << 32) |
                         uint64_t{static_cast<uint32_t>(p.eps_lo)};
  const uint64_t v = (m2 << 16) + eps16;  // < 2^63
  Row r{d << lsh, 0, 0, 0};
  r.offset = p.rms ? zp * r.dl : sum * (int32_t{1} << lsh);
  if (v == 0) return r;  // every t is 0 (constant row, eps 0)
  // v = w * 2^(62 - k), w in [1, 4), k even: 1/sqrt(v / 2^16) = y / 2^30 * 2^(k/2 - 23).
  const int32_t k = __builtin_clzll(v) & ~1;
  const auto w32 = static_cast<uint32_t>((v << k) >> 32);
  // With t = q * depth * 2^lsh - offset: MulHiR(t, y) = n * 2^(lsh + 21 - k/2) for
  // n = (x - mean) / sqrt(var + eps), and MulHiR(that, scale) = n * weight / out_scale *
  // 2^(lsh + 20 - k/2 - scale_exp): `shift` right of the output's 2^kFracBits steps. Up to
  // lsh of it comes off t's headroom instead (t stays exact), the rest is ShiftR's.
  const int32_t shift = lsh + 20 - k / 2 - p.scale_exp - kFracBits;
  const int32_t in_t = shift < 0 ? 0 : (shift > lsh ? lsh : shift);
  r.dl = d << (lsh - in_t);
  r.offset = p.rms ? zp * r.dl : sum * (int32_t{1} << (lsh - in_t));
  if (shift - in_t > 31) return r;  // |o| < 2^31 shifted right by >= 32 rounds to 0
  *w32_out = w32;  // >= 2^30
  r.shift = shift - in_t < -31 ? -31 : shift - in_t;
  return r;
}

// sum and sumsq: sum of q and of q^2 over the row (raw int8 values); lsh = Headroom(depth).
inline Row RowOf(const s8_layernorm_params& p, int32_t lsh, int32_t sum, int32_t sumsq) {
  uint32_t w32;
  Row r = RowPrep(p, lsh, sum, sumsq, &w32);
  if (w32 != 0) r.rsqrt = static_cast<int32_t>(RsqrtQ30(w32));
  return r;
}

// One output element (the reference's per-element step).
inline int8_t Element(const Row& r, int32_t q, int32_t scale, int32_t bias) {
  const int32_t t = q * r.dl - r.offset;
  return Out(ShiftR(MulHiR(MulHiR(t, r.rsqrt), scale), r.shift), bias);
}

// The same when r.shift is 0 (most rows).
inline int8_t ElementNoShift(const Row& r, int32_t q, int32_t scale, int32_t bias) {
  return Out(MulHiR(MulHiR(q * r.dl - r.offset, r.rsqrt), scale), bias);
}

// The reference's elements of one row (any shift); the fast variants' rows with a shift
// left over (rare) take it too.
inline void ElementsOf(const s8_layernorm_params& p, const Row& row, const int8_t* in,
                       int8_t* out) {
  for (int32_t c = 0; c < p.depth; ++c) {
    const int32_t k = p.per_channel ? c : 0;
    out[c] = Element(row, in[c], p.scale[k], p.bias[k]);
  }
}

// Every variant's outer loop: per row, sum_row(in, depth, &sum, &sumsq) adds the row's q and
// q^2, then do_row(row constants, in, out) writes its outputs.
template <class SumRow, class DoRow>
inline void ForEachRow(const s8_layernorm_params& p, const int8_t* input, int8_t* output,
                       SumRow sum_row, DoRow do_row) {
  const int32_t lsh = Headroom(p.depth);
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * p.depth;
    int32_t sum = 0, sumsq = 0;
    sum_row(in, p.depth, &sum, &sumsq);
    do_row(RowOf(p, lsh, sum, sumsq), in, output + r * p.depth);
  }
}

}  // namespace tinyforge::layernorm

#endif  // TINYFORGE_KERNELS_LAYERNORM_LAYERNORM_ROW_H_
