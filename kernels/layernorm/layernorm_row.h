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
  int32_t lsh = 0;
  while (lsh < 23 && (int64_t{255} * depth << (lsh + 1)) <= INT32_MAX) ++lsh;
  return lsh;
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

// 1/sqrt(w) in Q30 for w = w32 / 2^30 in [1, 4): a 24-entry table over w's top bits
// (round(2^30 / sqrt((i + 8.5) / 8)), relative error < 3.2%) and three Newton steps
// y <- y * (3 - w * y^2) / 2 (each squares the error; the result is within a few units of
// 2^30 / sqrt(w) and never above 2^30).
inline int32_t RsqrtQ30(uint32_t w32) {
  static constexpr int32_t kGuess[24] = {
      1041682578, 985333074, 937238702, 895562589, 858993459, 826566842, 797555404, 771398898,
      747657839,  725981977, 706088274, 687745184, 670761200, 654976372, 640255922, 626485368,
      613566757,  601415717, 589959130, 579133272, 568882316, 559157115, 549914212, 541115017};
  uint64_t y = static_cast<uint64_t>(kGuess[(w32 >> 27) - 8]);
  for (int i = 0; i < 3; ++i) {
    const uint64_t y2 = (y * y) >> 30;                 // Q30, <= 2^30
    const uint64_t wy2 = (uint64_t{w32} * y2) >> 30;   // Q30, close to 2^30
    y = (y * ((uint64_t{3} << 30) - wy2)) >> 31;
  }
  return static_cast<int32_t>(y);
}

// The per-row constants: t = q * dl - offset; o = ShiftR(MulHiR(MulHiR(t, rsqrt), scale), shift).
struct Row {
  int32_t offset;
  int32_t rsqrt;  // 0 when the row's normalized values are all 0 (or below the output's reach)
  int32_t shift;  // in [-31, 31]
};

// sum and sumsq: sum of q and of q^2 over the row (raw int8 values).
inline Row RowOf(const s8_layernorm_params& p, int32_t lsh, int32_t sum, int32_t sumsq) {
  const int64_t d = p.depth;
  const int64_t dl = d << lsh;
  int64_t m2;
  int64_t offset;
  if (p.rms) {
    const int64_t zp = p.input_zero_point;
    m2 = d * (sumsq - 2 * zp * sum + d * zp * zp);  // depth * sum (q - zp)^2 < 2^46
    offset = zp * dl;
  } else {
    m2 = d * sumsq - int64_t{sum} * sum;  // depth^2 * variance, exact, < 2^44
    offset = int64_t{sum} * (int64_t{1} << lsh);
  }
  const uint64_t eps16 = (uint64_t{static_cast<uint32_t>(p.eps_hi)} << 32) |
                         uint64_t{static_cast<uint32_t>(p.eps_lo)};
  const uint64_t v = (static_cast<uint64_t>(m2) << 16) + eps16;  // < 2^63
  Row r{static_cast<int32_t>(offset), 0, 0};
  if (v == 0) return r;  // every t is 0 (constant row, eps 0)
  // v = w * 2^(62 - k), w in [1, 4), k even: 1/sqrt(v / 2^16) = y / 2^30 * 2^(k/2 - 23).
  const int32_t k = __builtin_clzll(v) & ~1;
  const uint32_t w32 = static_cast<uint32_t>((v << k) >> 32);
  // MulHiR(t, y) = n * 2^(lsh + 21 - k/2) for n = (x - mean) / sqrt(var + eps);
  // MulHiR(that, scale) = n * gamma / out_scale * 2^(lsh + 20 - k/2 - scale_exp).
  const int32_t shift = lsh + 20 - k / 2 - p.scale_exp - kFracBits;
  if (shift > 31) return r;  // |o| < 2^31 shifted right by >= 32 rounds to 0
  r.rsqrt = RsqrtQ30(w32);
  r.shift = shift < -31 ? -31 : shift;
  return r;
}

// One output element (the reference's per-element step).
inline int8_t Element(const Row& r, int32_t q, int32_t dl, int32_t scale, int32_t bias) {
  const int32_t t = q * dl - r.offset;
  return Out(ShiftR(MulHiR(MulHiR(t, r.rsqrt), scale), r.shift), bias);
}

}  // namespace tinyforge::layernorm

#endif  // TINYFORGE_KERNELS_LAYERNORM_LAYERNORM_ROW_H_
