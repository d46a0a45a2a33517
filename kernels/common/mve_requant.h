// Requantization of 4 int32 lanes on Helium (MVE), bit-exact with fx::Requantize for both
// roundings: the depthwise paths (kernels/dwconv) and PRELU (kernels/mul/s8_prelu__mve.cc).
// Only included inside `#if TF_HAVE_MVE` (kernels/common/isa.h).
#ifndef TINYFORGE_KERNELS_COMMON_MVE_REQUANT_H_
#define TINYFORGE_KERNELS_COMMON_MVE_REQUANT_H_

#include <arm_mve.h>

#include <cstdint>

namespace tinyforge::mve_rq {

// Double rounding (TFLM): SRDHM(x << L, m) with a wrapping shift, then a rounding right shift
// by R with ties away from zero (vrshl rounds ties up: subtract 1 from negative values
// first): exactly fx::MultiplyByQuantizedMultiplier.
// Single rounding, shift s <= -1 (total shift T = 31 - s >= 32):
//   floor((x*m + 2^(T-1)) / 2^T) = vrshl(vqdmulh(x, m), s)
// because vqdmulh = floor(x*m / 2^31) and 2^(T-1) is a multiple of 2^31 (2 instructions).
// Single rounding, s >= 0 (T <= 31): the low 32 bits of the 64-bit (x*m + 2^(T-1)) >> T,
// as the reference computes it (wrapping when the value does not fit), from vmulh / vmul.
struct ChannelQuant {
  int32_t mult;
  int32_t shift;
  int32_t left;   // double: max(s, 0)
  int32_t right;  // double: min(s, 0); single: min(s, -1) (vrshl amounts)
};

template <bool kSingle>
inline ChannelQuant MakeQuant(int32_t mult, int32_t shift) {
  ChannelQuant q;
  q.mult = mult;
  q.shift = shift;
  q.left = shift > 0 ? shift : 0;
  if (kSingle) {
    q.right = shift < -1 ? shift : -1;
  } else {
    q.right = shift < 0 ? shift : 0;
  }
  return q;
}

// Single rounding for shift >= 0 (per-lane shift vector), exact and wrapping like the
// reference's int64 -> int32 cast.
inline int32x4_t SingleNonNeg(int32x4_t x, int32x4_t mult, int32x4_t shift) {
  const int32x4_t hi = vmulhq_s32(x, mult);
  const uint32x4_t lo = vreinterpretq_u32_s32(vmulq_s32(x, mult));
  // round = 2^(30 - s)
  const int32x4_t t = vsubq_s32(vdupq_n_s32(31), shift);  // T in [1, 31]
  const uint32x4_t round = vshlq_u32(vdupq_n_u32(1), vsubq_s32(t, vdupq_n_s32(1)));
  const uint32x4_t lo2 = vaddq_u32(lo, round);
  const mve_pred16_t no_carry = vcmpcsq_u32(lo2, round);
  const int32x4_t hi2 = vpselq_s32(hi, vaddq_n_s32(hi, 1), no_carry);
  const int32x4_t high_part = vshlq_s32(hi2, vaddq_n_s32(shift, 1));  // << (32 - T)
  const uint32x4_t low_part = vshlq_u32(lo2, vnegq_s32(t));           // >> T
  return vorrq_s32(high_part, vreinterpretq_s32_u32(low_part));
}

template <bool kSingle>
inline int32x4_t RequantScalar(int32x4_t x, const ChannelQuant& q) {
  if (kSingle) {
    if (q.shift >= 0) return SingleNonNeg(x, vdupq_n_s32(q.mult), vdupq_n_s32(q.shift));
    return vrshlq_n_s32(vqdmulhq_n_s32(x, q.mult), q.right);
  } else {
    if (q.left > 0) x = vshlq_r_s32(x, q.left);
    int32x4_t r = vqrdmulhq_n_s32(x, q.mult);
    if (q.right < 0) {
      r = vaddq_s32(r, vshrq_n_s32(r, 31));
      r = vrshlq_n_s32(r, q.right);
    }
    return r;
  }
}

// Per-lane (multiplier, shift) vectors, for the general path. kNonNeg: some shift >= 0.
template <bool kSingle, bool kNonNeg>
inline int32x4_t RequantVector(int32x4_t x, int32x4_t mult, int32x4_t shift) {
  const int32x4_t zero = vdupq_n_s32(0);
  if (kSingle) {
    const int32x4_t right = vminq_s32(shift, vdupq_n_s32(-1));
    const int32x4_t r = vrshlq_s32(vqdmulhq_s32(x, mult), right);
    if (!kNonNeg) return r;
    return vpselq_s32(SingleNonNeg(x, mult, shift), r, vcmpgeq_n_s32(shift, 0));
  } else {
    const int32x4_t left = vmaxq_s32(shift, zero);
    const int32x4_t right = vminq_s32(shift, zero);
    int32x4_t r = vqrdmulhq_s32(kNonNeg ? vshlq_s32(x, left) : x, mult);
    r = vaddq_s32(r, vshrq_n_s32(vandq_s32(r, right), 31));
    return vrshlq_s32(r, right);
  }
}

}  // namespace tinyforge::mve_rq

#endif  // TINYFORGE_KERNELS_COMMON_MVE_REQUANT_H_
