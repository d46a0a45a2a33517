// Armv7E-M / Armv8-M DSP-extension int8 GEMM core shared by s8_conv__dsp and s8_fc__dsp
// (internal header, only included inside `#if TF_HAVE_DSP`, kernels/common/isa.h).
//
// Columns (a pixel's inputs, an im2col patch, an FC row) are widened once per call or tile
// to int16 pairs WITH the input offset added (SXTAB16: x + offset fits int16), in the order
// SXTB16 produces from a weight word: for every 4 inputs x0..x3 the words [x0, x2], [x1, x3]
// (one LDRD). Weights stay int8: each weight word is split into [w0, w2], [w1, w3] by
// SXTB16 / SXTB16 ROR 8 and each half meets its column word in one SMLAD (2 MACs). Register
// blocking: 2 columns x 2 weight rows per block, so every widened weight word feeds 2 columns
// and every column load feeds 2 channels: per 4 inputs x 4 outputs (16 MACs) 2 LDR + 4 SXTB16 +
// 2 LDRD + 8 SMLAD. Padded taps are 0 in the widened column (zero point + offset = 0), so the
// input offset needs no bias correction. K % 4 leftover inputs go through a scalar tail.
//
// Requantization per element, bit-exact with fx::Requantize (64-bit SMULL forms).
#ifndef TINYFORGE_KERNELS_COMMON_GEMM_DSP_GEMM_H_
#define TINYFORGE_KERNELS_COMMON_GEMM_DSP_GEMM_H_

#include <arm_acle.h>

#include <cstdint>

#include "kernels/common/fixed_point.h"
#include "kernels/common/rq_mode.h"
#include "kernels/common/word.h"

namespace tinyforge::dsp {

using tinyforge::LoadWord;

// Widens n int8 values + offset into int16 pairs (see above): group g (inputs 4g..4g+3) goes
// to dst[4g] = [x0, x2], dst[4g + 1] = [x1, x3]; dst[4g + 2..3] belong to a second column
// (Widen(..., dst + 2)). The last partial group is zero padded. dst: 8-byte aligned.
inline void Widen(const int8_t* src, int32_t n, int32_t offset, uint32_t* dst) {
  const uint32_t off2 = (static_cast<uint32_t>(offset) & 0xFFFFu) * 0x10001u;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4, dst += 4) {
    const uint32_t v = LoadWord(src + i);
    dst[0] = __sxtab16(off2, v);
    dst[1] = Sxtab16Ror8(off2, v);
  }
  if (i < n) {
    uint32_t v = 0;
    uint32_t valid = 0;
    for (int32_t j = 0; i + j < n; ++j) {
      v |= static_cast<uint32_t>(static_cast<uint8_t>(src[i + j])) << (8 * j);
      valid |= 0xFFu << (8 * j);
    }
    // Lanes past n are masked to 0.
    const uint32_t ma = ((valid & 0xFFu) ? 0xFFFFu : 0u) | ((valid & 0xFF0000u) ? 0xFFFF0000u : 0u);
    const uint32_t mb = ((valid & 0xFF00u) ? 0xFFFFu : 0u) |
                        ((valid & 0xFF000000u) ? 0xFFFF0000u : 0u);
    dst[0] = __sxtab16(off2, v) & ma;
    dst[1] = Sxtab16Ror8(off2, v) & mb;
  }
}

// The requantization cases (kernels/common/rq_mode.h).
using rq::ChooseMode;
using rq::RqMode;
using rq::kRqDouble;
using rq::kRqDoubleNeg;
using rq::kRqDoubleNonPos;
using rq::kRqPerElement;
using rq::kRqSingle;
using rq::kRqSingleNeg;

// Requantization parameters of one channel, computed per channel pair outside the pixel loop.
struct ChanQ {
  int32_t m;
  int32_t a;         // double: left shift | single: 31 - shift | *Neg: right shift (>= 1)
  int32_t b;         // double: right shift | *Neg double: right shift - 1 | single neg: 0
  int64_t round;     // single: 2^(30 - shift)
};

template <int kMode>
inline ChanQ MakeChanQ(int32_t m, int32_t shift) {
  if constexpr (kMode == kRqSingle) {
    return {m, 31 - shift, 0, int64_t{1} << (30 - shift)};
  } else if constexpr (kMode == kRqSingleNeg) {
    // (x * m + 2^(30 - s)) >> (31 - s) = high word of the sum >> (-1 - s) for s <= -1.
    return {m, -1 - shift, 0, int64_t{1} << (30 - shift)};
  } else if constexpr (kMode == kRqDoubleNeg) {
    return {m, -shift, -shift - 1, 0};
  } else {
    return {m, shift > 0 ? shift : 0, shift > 0 ? 0 : -shift, 0};
  }
}

template <int kMode>
inline int32_t Requant(int32_t x, const ChanQ& q) {
  if constexpr (kMode == kRqSingleNeg) {
    const int64_t r = q.round + static_cast<int64_t>(x) * q.m;  // SMLAL
    return static_cast<int32_t>(r >> 32) >> q.a;
  } else if constexpr (kMode == kRqSingle) {
    const int64_t r = q.round + static_cast<int64_t>(x) * q.m;
    return static_cast<int32_t>(r >> q.a);
  } else if constexpr (kMode == kRqDoubleNeg) {
    // SRDHM (m in [0, 2^31): floor((x*m + 2^30) / 2^31), no saturation), then
    // RoundingDivideByPOT(h, r), r >= 1: with t = h - (h < 0), floor((t + 2^(r-1)) / 2^r)
    // = (t >> r) + bit r-1 of t (no overflowing add).
    const int32_t h =
        static_cast<int32_t>(((int64_t{1} << 30) + static_cast<int64_t>(x) * q.m) >> 31);
    const int32_t t = h + (h >> 31);
    return (t >> q.a) + ((t >> q.b) & 1);
  } else {
    const int32_t xs = static_cast<int32_t>(static_cast<uint32_t>(x) << q.a);
    const int32_t h =
        static_cast<int32_t>((static_cast<int64_t>(xs) * q.m + (int64_t{1} << 30)) >> 31);
    if (q.b == 0) return h;
    const int32_t mask = static_cast<int32_t>((uint32_t{1} << q.b) - 1u);
    const int32_t rem = h & mask;
    const int32_t threshold = (mask >> 1) + (h < 0 ? 1 : 0);
    return (h >> q.b) + (rem > threshold ? 1 : 0);
  }
}

struct OutQ {
  int32_t output_offset, act_min, act_max;
};

// kFull: the clamp is [-128, 127] (one SSAT).
template <int kMode, bool kFull>
inline int8_t Finish(int32_t acc, const ChanQ& q, const OutQ& o) {
  int32_t v = fx::WrapAdd(Requant<kMode>(acc, q), o.output_offset);
  if constexpr (kFull) {
    return static_cast<int8_t>(__ssat(v, 8));
  } else {
    v = v < o.act_min ? o.act_min : v;
    v = v > o.act_max ? o.act_max : v;
    return static_cast<int8_t>(v);
  }
}

// 2 interleaved widened columns (c, 4 words per group) x 2 weight rows over g >= 1 groups
// of 4 inputs: a00 += c0.w0, a01 += c0.w1, a10 += c1.w0, a11 += c1.w1. Per group: 2 LDR,
// 4 SXTB16, 2 LDRD, 8 SMLAD, loop 2 (assembly: GCC 12 splits SXTB16 ROR into ROR + SXTB16
// and spills the 14 live registers of the intrinsic version).
inline void Dot2x2(const uint32_t* c, const int8_t* w0, const int8_t* w1, int32_t g, int32_t& r00,
                   int32_t& r01, int32_t& r10, int32_t& r11) {
  int32_t a00 = r00, a01 = r01, a10 = r10, a11 = r11;
  uint32_t t0, t1, t2, t3, xa, xb;
  __asm__ volatile(
      "1:\n\t"
      "ldr %[t0], [%[w0]], #4\n\t"
      "ldr %[t2], [%[w1]], #4\n\t"
      "sxtb16 %[t1], %[t0], ror #8\n\t"
      "sxtb16 %[t0], %[t0]\n\t"
      "sxtb16 %[t3], %[t2], ror #8\n\t"
      "sxtb16 %[t2], %[t2]\n\t"
      "ldrd %[xa], %[xb], [%[c]], #16\n\t"
      "smlad %[a00], %[xa], %[t0], %[a00]\n\t"
      "smlad %[a00], %[xb], %[t1], %[a00]\n\t"
      "smlad %[a01], %[xa], %[t2], %[a01]\n\t"
      "smlad %[a01], %[xb], %[t3], %[a01]\n\t"
      "ldrd %[xa], %[xb], [%[c], #-8]\n\t"
      "smlad %[a10], %[xa], %[t0], %[a10]\n\t"
      "smlad %[a10], %[xb], %[t1], %[a10]\n\t"
      "smlad %[a11], %[xa], %[t2], %[a11]\n\t"
      "smlad %[a11], %[xb], %[t3], %[a11]\n\t"
      "subs %[g], %[g], #1\n\t"
      "bne 1b\n"
      : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [c] "+r"(c),
        [w0] "+r"(w0), [w1] "+r"(w1), [g] "+r"(g), [t0] "=&r"(t0), [t1] "=&r"(t1),
        [t2] "=&r"(t2), [t3] "=&r"(t3), [xa] "=&r"(xa), [xb] "=&r"(xb)
      :
      : "cc", "memory");
  r00 = a00;
  r01 = a01;
  r10 = a10;
  r11 = a11;
}

// 1 widened column (4 words per group, first 2 used) x 2 weight rows, g >= 1 groups.
inline void Dot1x2(const uint32_t* c, const int8_t* w0, const int8_t* w1, int32_t g, int32_t& r0,
                   int32_t& r1) {
  int32_t a0 = r0, a1 = r1;
  uint32_t t0, t1, t2, t3, xa, xb;
  __asm__ volatile(
      "1:\n\t"
      "ldr %[t0], [%[w0]], #4\n\t"
      "ldr %[t2], [%[w1]], #4\n\t"
      "sxtb16 %[t1], %[t0], ror #8\n\t"
      "sxtb16 %[t0], %[t0]\n\t"
      "sxtb16 %[t3], %[t2], ror #8\n\t"
      "sxtb16 %[t2], %[t2]\n\t"
      "ldrd %[xa], %[xb], [%[c]], #16\n\t"
      "smlad %[a0], %[xa], %[t0], %[a0]\n\t"
      "smlad %[a0], %[xb], %[t1], %[a0]\n\t"
      "smlad %[a1], %[xa], %[t2], %[a1]\n\t"
      "smlad %[a1], %[xb], %[t3], %[a1]\n\t"
      "subs %[g], %[g], #1\n\t"
      "bne 1b\n"
      : [a0] "+r"(a0), [a1] "+r"(a1), [c] "+r"(c), [w0] "+r"(w0), [w1] "+r"(w1), [g] "+r"(g),
        [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [xa] "=&r"(xa),
        [xb] "=&r"(xb)
      :
      : "cc", "memory");
  r0 = a0;
  r1 = a1;
}

// The last r = k % 4 inputs of a column (its widened tail group words c[0], c[1]) times a
// weight row's last r weights (int8, read bytewise).
inline int32_t TailDot(const uint32_t* c, const int8_t* w, int32_t r) {
  // Widened lane order within a group: x0 -> word0 lo, x1 -> word1 lo, x2 -> word0 hi.
  const int32_t x0 = static_cast<int16_t>(c[0] & 0xFFFFu);
  const int32_t x1 = static_cast<int16_t>(c[1] & 0xFFFFu);
  const int32_t x2 = static_cast<int16_t>(c[0] >> 16);
  int32_t s = x0 * w[0];
  if (r > 1) s += x1 * w[1];
  if (r > 2) s += x2 * w[2];
  return s;
}

// Output channels [0, n_out) of np (1 or 2) widened columns interleaved in ext (column j at
// ext + 2 * j) of k inputs: out[i * n_out + c]. bias may be null. q_step: 1 per channel, 0 per
// tensor.
template <int kMode, bool kFull>
inline void Tile2(const uint32_t* ext, int32_t np, const int8_t* weights, int32_t k,
                  const int32_t* bias, const int32_t* mult, const int32_t* shift, int32_t q_step,
                  int32_t n_out, const OutQ& oq, int8_t* out) {
  const int32_t g = k >> 2;
  const int32_t r = k & 3;
  const uint32_t* t0 = ext + 4 * g;
  const uint32_t* t1 = t0 + 2;
  int32_t oc = 0;
  for (; oc + 1 < n_out; oc += 2) {
    const int8_t* w0 = weights + oc * k;
    const int8_t* w1 = w0 + k;
    const int32_t b0 = bias != nullptr ? bias[oc] : 0;
    const int32_t b1 = bias != nullptr ? bias[oc + 1] : 0;
    const ChanQ q0 = MakeChanQ<kMode>(mult[oc * q_step], shift[oc * q_step]);
    const ChanQ q1 = MakeChanQ<kMode>(mult[(oc + 1) * q_step], shift[(oc + 1) * q_step]);
    if (np == 2) {
      int32_t a00 = b0, a01 = b1, a10 = b0, a11 = b1;
      if (g > 0) Dot2x2(ext, w0, w1, g, a00, a01, a10, a11);
      if (r != 0) {
        a00 += TailDot(t0, w0 + 4 * g, r);
        a01 += TailDot(t0, w1 + 4 * g, r);
        a10 += TailDot(t1, w0 + 4 * g, r);
        a11 += TailDot(t1, w1 + 4 * g, r);
      }
      out[oc] = Finish<kMode, kFull>(a00, q0, oq);
      out[oc + 1] = Finish<kMode, kFull>(a01, q1, oq);
      out[n_out + oc] = Finish<kMode, kFull>(a10, q0, oq);
      out[n_out + oc + 1] = Finish<kMode, kFull>(a11, q1, oq);
    } else {
      int32_t a0 = b0, a1 = b1;
      if (g > 0) Dot1x2(ext, w0, w1, g, a0, a1);
      if (r != 0) {
        a0 += TailDot(t0, w0 + 4 * g, r);
        a1 += TailDot(t0, w1 + 4 * g, r);
      }
      out[oc] = Finish<kMode, kFull>(a0, q0, oq);
      out[oc + 1] = Finish<kMode, kFull>(a1, q1, oq);
    }
  }
  if (oc < n_out) {
    const int8_t* w0 = weights + oc * k;
    const int32_t b0 = bias != nullptr ? bias[oc] : 0;
    const ChanQ q0 = MakeChanQ<kMode>(mult[oc * q_step], shift[oc * q_step]);
    for (int32_t i = 0; i < np; ++i) {
      int32_t a0 = b0, dummy = 0;
      if (g > 0) Dot1x2(ext + 2 * i, w0, w0, g, a0, dummy);
      if (r != 0) a0 += TailDot(t0 + 2 * i, w0 + 4 * g, r);
      out[i * n_out + oc] = Finish<kMode, kFull>(a0, q0, oq);
    }
  }
}

// Calls f.template operator()<kMode, kFull>() for the call's requantization mode and clamp.
template <typename F>
inline void Dispatch(const int32_t* shift, int32_t n_shift, int32_t rounding, int32_t act_min,
                     int32_t act_max, F&& f) {
  const bool full = act_min == -128 && act_max == 127;
  switch (ChooseMode<false>(shift, n_shift, rounding)) {
    case kRqDoubleNeg:
      full ? f.template operator()<kRqDoubleNeg, true>()
           : f.template operator()<kRqDoubleNeg, false>();
      break;
    case kRqSingleNeg:
      full ? f.template operator()<kRqSingleNeg, true>()
           : f.template operator()<kRqSingleNeg, false>();
      break;
    case kRqSingle:
      f.template operator()<kRqSingle, false>();
      break;
    default:
      f.template operator()<kRqDouble, false>();
      break;
  }
}

}  // namespace tinyforge::dsp

#endif  // TINYFORGE_KERNELS_COMMON_GEMM_DSP_GEMM_H_
