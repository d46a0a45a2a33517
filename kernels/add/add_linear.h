// ADD / SUB element arithmetic (the reference's, one place) and the linear form the compiler
// proves equal to it (s8_add_params::lin_*). Freestanding C++17.
//
// An int8 ADD's output is a function of its two int8 inputs only, so a cheaper arithmetic
// can be checked on all 65,536 pairs. The form here is
//   y = clamp((x1 * alpha + x2 * beta + gamma) >> shift, act_min, act_max)
// (one multiply-accumulate pair and a saturating shift per element in the fast variants).
// s8_add_find_linear derives alpha, beta from the parameters' real multipliers
// (2^left_shift * m1 2^(s1 - 31) * mo 2^(so - 31), sign flipped for SUB's input 2) at the
// largest shift that keeps the sum inside int32, solves the interval of gamma that matches
// every pair exactly (a floor's two-sided bound per pair; one-sided where the output is
// clamped), and tries the neighbouring alpha, beta and smaller shifts when it is empty. It
// fills the lin_* fields only when some candidate matches all pairs, so a fast variant using
// them is bit-exact with __ref by construction. Cost: one table of the 65,536 reference
// outputs, then one pass over it per candidate (usually the first).
#ifndef TINYFORGE_KERNELS_ADD_ADD_LINEAR_H_
#define TINYFORGE_KERNELS_ADD_ADD_LINEAR_H_

#include <cstdint>

#include "kernels/add/add.h"
#include "kernels/common/fixed_point.h"

namespace tinyforge::add_linear {

// The reference output of ADD (kSub false) or SUB for inputs x1, x2 (TFLite Micro's AddFunc /
// SubFunc, kernels/add/add.h).
template <bool kSub>
constexpr int8_t Element(const s8_add_params& p, int32_t x1, int32_t x2) {
  namespace fx = tinyforge::fx;
  const int32_t a = fx::RequantizeSmallerThanOne(
      fx::WrapShiftLeft(p.input1_offset + x1, p.left_shift), p.input1_multiplier,
      p.input1_shift, p.rounding);
  const int32_t b = fx::RequantizeSmallerThanOne(
      fx::WrapShiftLeft(p.input2_offset + x2, p.left_shift), p.input2_multiplier,
      p.input2_shift, p.rounding);
  const int32_t sum = kSub ? fx::WrapSub(a, b) : fx::WrapAdd(a, b);
  const int32_t y =
      fx::WrapAdd(fx::RequantizeSmallerThanOne(sum, p.output_multiplier, p.output_shift,
                                               p.rounding),
                  p.output_offset);
  return static_cast<int8_t>(fx::Clamp(y, p.act_min, p.act_max));
}

// Bounds of the form's operands (the sum of two products and gamma stays inside int32).
constexpr int32_t kMaxCoef = (int32_t{1} << 22) - 1;
constexpr int32_t kMaxGamma = (int32_t{1} << 30) - 1;
constexpr int32_t kMaxShift = 24;

// The form's value for one pair (what the fast variants compute).
constexpr int32_t Evaluate(const s8_add_params& p, int32_t x1, int32_t x2) {
  const int32_t t = x1 * p.lin_alpha + x2 * p.lin_beta + p.lin_gamma;
  return tinyforge::fx::Clamp(t >> p.lin_shift, p.act_min, p.act_max);
}

// The load-time spot check of a program's form (the runtime validator): 64 pairs, the four
// corners and 60 spread by a fixed linear congruential sequence. Not a proof (that is the
// compiler's search); it refuses a form whose words were changed, as the other consistency
// checks do (docs/program-format.md). True when they all match (or there is no form).
template <bool kSub>
constexpr bool SpotCheck(const s8_add_params& p) {
  if (p.lin_shift == 0) return true;
  uint32_t state = 0x2545F491u;
  for (int32_t k = 0; k < 64; ++k) {
    int32_t x1 = 0, x2 = 0;
    if (k < 4) {
      x1 = (k & 1) != 0 ? 127 : -128;
      x2 = (k & 2) != 0 ? 127 : -128;
    } else {
      state = state * 1664525u + 1013904223u;
      x1 = static_cast<int32_t>((state >> 24) & 0xFF) - 128;
      x2 = static_cast<int32_t>((state >> 16) & 0xFF) - 128;
    }
    if (Evaluate(p, x1, x2) != Element<kSub>(p, x1, x2)) return false;
  }
  return true;
}

namespace detail {

constexpr double Pow2(int e) {
  double r = 1;
  for (; e > 0; --e) r *= 2;
  for (; e < 0; ++e) r /= 2;
  return r;
}

constexpr int64_t RoundToInt(double v) {
  return v >= 0 ? static_cast<int64_t>(v + 0.5) : -static_cast<int64_t>(-v + 0.5);
}

// gamma's interval for (alpha, beta, shift) over the reference table, or false.
inline bool GammaFor(const s8_add_params& p, const int8_t* table, int64_t alpha, int64_t beta,
                     int shift, int64_t* gamma) {
  int64_t lo = -(int64_t{1} << 62), hi = int64_t{1} << 62;
  const int64_t unit = int64_t{1} << shift;
  for (int32_t i = 0; i < 256; ++i) {
    const int64_t l1 = alpha * (i - 128);
    for (int32_t j = 0; j < 256; ++j) {
      const int64_t y = table[i * 256 + j];
      const int64_t l = l1 + beta * (j - 128);
      // floor((l + g) / unit) == y: y * unit <= l + g < (y + 1) * unit; where the output is
      // the clamp bound, only the side away from it.
      if (y > p.act_min && y * unit - l > lo) lo = y * unit - l;
      if (y < p.act_max && (y + 1) * unit - l - 1 < hi) hi = (y + 1) * unit - l - 1;
    }
    if (lo > hi) return false;
  }
  // The gamma nearest 0 in the interval (it rarely matters).
  const int64_t g = lo > 0 ? lo : (hi < 0 ? hi : 0);
  if (g > kMaxGamma || g < -kMaxGamma) return false;
  *gamma = g;
  return true;
}

}  // namespace detail

// Fills p->lin_* (else leaves them 0) for ADD (kSub false) or SUB with p's other fields final.
// `table`: 65,536 bytes of caller scratch.
template <bool kSub>
inline bool FindLinear(s8_add_params* p, int8_t* table) {
  p->lin_alpha = p->lin_beta = p->lin_gamma = p->lin_shift = 0;
  if (p->left_shift < 0 || p->left_shift > 20 || p->input1_shift > 0 || p->input2_shift > 0 ||
      p->output_shift > 0) {
    return false;
  }
  for (int32_t i = 0; i < 256; ++i) {
    for (int32_t j = 0; j < 256; ++j) table[i * 256 + j] = Element<kSub>(*p, i - 128, j - 128);
  }
  using detail::Pow2;
  const double out = p->output_multiplier * Pow2(p->output_shift - 31);
  const double a = Pow2(p->left_shift) * p->input1_multiplier * Pow2(p->input1_shift - 31) * out;
  const double b = (kSub ? -1 : 1) * Pow2(p->left_shift) * p->input2_multiplier *
                   Pow2(p->input2_shift - 31) * out;
  const double big = (a < 0 ? -a : a) > (b < 0 ? -b : b) ? (a < 0 ? -a : a) : (b < 0 ? -b : b);
  if (big == 0) return false;
  int top = kMaxShift;
  while (top > 0 && big * Pow2(top) + 2 > kMaxCoef) --top;
  for (int shift = top; shift >= 1 && shift > top - 3; --shift) {
    const int64_t a0 = detail::RoundToInt(a * Pow2(shift));
    const int64_t b0 = detail::RoundToInt(b * Pow2(shift));
    // Nearest candidates first: (0, 0), then the ring at distance 1, then 2.
    for (int ring = 0; ring <= 2; ++ring) {
      for (int64_t da = -ring; da <= ring; ++da) {
        for (int64_t db = -ring; db <= ring; ++db) {
          if ((da < 0 ? -da : da) != ring && (db < 0 ? -db : db) != ring) continue;
          const int64_t alpha = a0 + da, beta = b0 + db;
          if (alpha > kMaxCoef || alpha < -kMaxCoef || beta > kMaxCoef || beta < -kMaxCoef) {
            continue;
          }
          int64_t gamma = 0;
          if (!detail::GammaFor(*p, table, alpha, beta, shift, &gamma)) continue;
          p->lin_alpha = static_cast<int32_t>(alpha);
          p->lin_beta = static_cast<int32_t>(beta);
          p->lin_gamma = static_cast<int32_t>(gamma);
          p->lin_shift = shift;
          return true;
        }
      }
    }
  }
  return false;
}

}  // namespace tinyforge::add_linear

#endif  // TINYFORGE_KERNELS_ADD_ADD_LINEAR_H_
