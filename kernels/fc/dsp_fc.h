// Armv7E-M / Armv8-M DSP-extension helpers of s8_fc__dsp at batch 1 (a GEMV): internal
// header, only included inside `#if TF_HAVE_DSP`, kernels/common/isa.h.
//
// WidenDense: the input row + input_offset as int16, for every 4 inputs x0..x3 the two words
// [x0, x2], [x1, x3] (the lane order SXTB16 / SXTB16 ROR 8 give a weight word), 8 bytes per
// group. Dot4 / Dot2 / Dot1 stream 4 / 2 / 1 weight rows past it: per group of 4 inputs one
// LDRD of the widened pair feeds every row, and each row costs LDR w + SXTB16 + SXTB16 ROR 8 +
// 2 SMLAD. Rows are addressed from one post-incremented pointer p as [p, k], [p, k, lsl #1],
// [p, 3k] (k = row stride in bytes), so Dot4 needs 13 registers; 4 groups per loop
// iteration. (s8_fc__dsp.cc's 5-row Dot5Blocks is the main loop; these take the rows it
// leaves.) DotRaw2 / DotRaw1 skip the widening for 1-3 rows: LDR + 2 SXTAB16 per group.
//
// Requantization (FastRequant): exact shortcuts of fx::Requantize for shift in [-20, -1] and
// multiplier 0 or in [2^30, 2^31), with the output offset folded in; see the proof there.
#ifndef TINYFORGE_KERNELS_FC_DSP_FC_H_
#define TINYFORGE_KERNELS_FC_DSP_FC_H_

#include <arm_acle.h>

#include <cstdint>

#include "kernels/common/word.h"

namespace tinyforge::dspfc {

using tinyforge::LoadWord;
using tinyforge::dsp::Sxtab16Ror8;

// n int8 values + offset as int16 pairs: group g (inputs 4g..4g+3) -> dst[2g] = [x0, x2],
// dst[2g + 1] = [x1, x3]. A last partial group is zero padded. dst: 8-byte aligned,
// 2 * ceil(n / 4) words.
inline void WidenDense(const int8_t* src, int32_t n, int32_t offset, uint32_t* dst) {
  const uint32_t off2 = (static_cast<uint32_t>(offset) & 0xFFFFu) * 0x10001u;
  int32_t i = n & ~7;
  if (i > 0) {
    // 8 inputs per iteration: 2 LDR, 4 SXTAB16, 2 STRD, loop.
    const int8_t* s = src;
    int32_t cnt = i >> 3;
    uint32_t v0, v1, e0, e1;
    __asm__ volatile(
        "1:\n\t"
        "ldr %[v0], [%[s]], #4\n\t"
        "ldr %[v1], [%[s]], #4\n\t"
        "sxtab16 %[e0], %[off], %[v0]\n\t"
        "sxtab16 %[e1], %[off], %[v0], ror #8\n\t"
        "strd %[e0], %[e1], [%[d]], #8\n\t"
        "sxtab16 %[e0], %[off], %[v1]\n\t"
        "sxtab16 %[e1], %[off], %[v1], ror #8\n\t"
        "strd %[e0], %[e1], [%[d]], #8\n\t"
        "subs %[cnt], %[cnt], #1\n\t"
        "bne 1b\n"
        : [s] "+r"(s), [d] "+r"(dst), [cnt] "+r"(cnt), [v0] "=&r"(v0), [v1] "=&r"(v1),
          [e0] "=&r"(e0), [e1] "=&r"(e1)
        : [off] "r"(off2)
        : "cc", "memory");
  }
  if (i + 4 <= n) {
    const uint32_t v = LoadWord(src + i);
    dst[0] = __sxtab16(off2, v);
    dst[1] = Sxtab16Ror8(off2, v);
    i += 4;
    dst += 2;
  }
  if (i < n) {
    // 1..3 inputs left: x0 -> dst[0] lo, x1 -> dst[1] lo, x2 -> dst[0] hi; the rest 0.
    const int32_t r = n - i;
    const uint32_t x0 = static_cast<uint32_t>(src[i] + offset) & 0xFFFFu;
    const uint32_t x1 = r > 1 ? static_cast<uint32_t>(src[i + 1] + offset) & 0xFFFFu : 0u;
    const uint32_t x2 = r > 2 ? static_cast<uint32_t>(src[i + 2] + offset) << 16 : 0u;
    dst[0] = x0 | x2;
    dst[1] = x1;
  }
}

// One group (4 inputs) of row j: weight word at `addr`, accumulator aj.
#define TF_FC_ROW(aj, addr)                  \
  "ldr %[t], " addr "\n\t"                   \
  "sxtb16 %[u], %[t], ror #8\n\t"            \
  "sxtb16 %[t], %[t]\n\t"                    \
  "smlad %[" aj "], %[xa], %[t], %[" aj "]\n\t" \
  "smlad %[" aj "], %[xb], %[u], %[" aj "]\n\t"

#define TF_FC_G4                                  \
  "ldrd %[xa], %[xb], [%[c]], #8\n\t"             \
  TF_FC_ROW("a1", "[%[p], %[k]]")                 \
  TF_FC_ROW("a2", "[%[p], %[k], lsl #1]")         \
  TF_FC_ROW("a3", "[%[p], %[k3]]")                \
  TF_FC_ROW("a0", "[%[p]], #4")

#define TF_FC_G2                          \
  "ldrd %[xa], %[xb], [%[c]], #8\n\t"     \
  TF_FC_ROW("a1", "[%[p], %[k]]")         \
  TF_FC_ROW("a0", "[%[p]], #4")

#define TF_FC_G1                          \
  "ldrd %[xa], %[xb], [%[c]], #8\n\t"     \
  TF_FC_ROW("a0", "[%[p]], #4")

#define TF_FC_X4(s) s s s s

// g groups: n (a literal) per iteration, then the g % n leftover groups one at a
// time (g may be 0).
#define TF_FC_LOOP(group, unrolled, n)   \
  "subs %[g], %[g], #" n "\n\t"          \
  "blt 2f\n"                             \
  "1:\n\t" unrolled(group)               \
  "subs %[g], %[g], #" n "\n\t"          \
  "bge 1b\n"                             \
  "2:\n\t"                               \
  "adds %[g], %[g], #" n "\n\t"          \
  "beq 4f\n"                             \
  "3:\n\t" group                         \
  "subs %[g], %[g], #1\n\t"              \
  "bne 3b\n"                             \
  "4:\n"

// Rows w, w + k, w + 2k, w + 3k (k3 = 3k) over g groups of the widened input c:
// r[j] = b[j] + row j . c (b: 4 int32, word aligned); w advances by 4g. The accumulators
// start from the bias inside the asm (2 LDRD), which also keeps GCC from tying 4 operands
// to one zero.
__attribute__((always_inline)) inline void Dot4(const uint32_t* c, const int8_t*& w, int32_t k,
                                                int32_t k3, int32_t g, const int32_t* b,
                                                int32_t& r0, int32_t& r1, int32_t& r2,
                                                int32_t& r3) {
  int32_t a0, a1, a2, a3;
  uint32_t t, xa, xb;
  uint32_t u = reinterpret_cast<uintptr_t>(b);
  __asm__ volatile("ldrd %[a0], %[a1], [%[u]]\n\t"
                   "ldrd %[a2], %[a3], [%[u], #8]\n\t"
                   TF_FC_LOOP(TF_FC_G4, TF_FC_X4, "4")
                   : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),
                     [c] "+r"(c), [p] "+r"(w), [g] "+r"(g), [u] "+r"(u), [t] "=&r"(t),
                     [xa] "=&r"(xa), [xb] "=&r"(xb)
                   : [k] "r"(k), [k3] "r"(k3)
                   : "cc", "memory");
  r0 = a0;
  r1 = a1;
  r2 = a2;
  r3 = a3;
}

// Rows w, w + k: r[j] = b[j] + row j . c (b: 2 int32, word aligned); w advances by 4g.
__attribute__((always_inline)) inline void Dot2(const uint32_t* c, const int8_t*& w, int32_t k,
                                                int32_t g, const int32_t* b, int32_t& r0,
                                                int32_t& r1) {
  int32_t a0, a1;
  uint32_t t, xa, xb;
  uint32_t u = reinterpret_cast<uintptr_t>(b);
  __asm__ volatile("ldrd %[a0], %[a1], [%[u]]\n\t"
                   TF_FC_LOOP(TF_FC_G2, TF_FC_X4, "4")
                   : [a0] "=&r"(a0), [a1] "=&r"(a1), [c] "+r"(c), [p] "+r"(w), [g] "+r"(g),
                     [u] "+r"(u), [t] "=&r"(t), [xa] "=&r"(xa), [xb] "=&r"(xb)
                   : [k] "r"(k)
                   : "cc", "memory");
  r0 = a0;
  r1 = a1;
}

// Row w: r0 = b[0] + row . c; w advances by 4g.
__attribute__((always_inline)) inline void Dot1(const uint32_t* c, const int8_t*& w, int32_t g,
                                                const int32_t* b, int32_t& r0) {
  int32_t a0;
  uint32_t t, xa, xb;
  uint32_t u = reinterpret_cast<uintptr_t>(b);
  __asm__ volatile("ldr %[a0], [%[u]]\n\t"
                   TF_FC_LOOP(TF_FC_G1, TF_FC_X4, "4")
                   : [a0] "=&r"(a0), [c] "+r"(c), [p] "+r"(w), [g] "+r"(g), [u] "+r"(u),
                     [t] "=&r"(t), [xa] "=&r"(xa), [xb] "=&r"(xb)
                   :
                   : "cc", "memory");
  r0 = a0;
}

// Without widening (for 1-3 rows, where widening the input costs more than it saves): the
// raw int8 input s, offset added per group (LDR + 2 SXTAB16 instead of one LDRD).
#define TF_FC_RAW_G(rows)                          \
  "ldr %[t], [%[s]], #4\n\t"                      \
  "sxtab16 %[xa], %[off], %[t]\n\t"               \
  "sxtab16 %[xb], %[off], %[t], ror #8\n\t" rows
#define TF_FC_RAW_G2 TF_FC_RAW_G(TF_FC_ROW("a1", "[%[p], %[k]]") TF_FC_ROW("a0", "[%[p]], #4"))
#define TF_FC_RAW_G1 TF_FC_RAW_G(TF_FC_ROW("a0", "[%[p]], #4"))

// Rows w, w + k over g groups of the raw input s (+ off2 = offset in both halves):
// r[j] = b[j] + row j . (s + offset); w advances by 4g.
__attribute__((always_inline)) inline void DotRaw2(const int8_t* s, const int8_t*& w, int32_t k,
                                                   int32_t g, uint32_t off2, const int32_t* b,
                                                   int32_t& r0, int32_t& r1) {
  int32_t a0 = b[0], a1 = b[1];
  uint32_t t, u, xa, xb;
  __asm__ volatile(TF_FC_LOOP(TF_FC_RAW_G2, TF_FC_X4, "4")
                   : [a0] "+r"(a0), [a1] "+r"(a1), [s] "+r"(s), [p] "+r"(w), [g] "+r"(g),
                     [t] "=&r"(t), [u] "=&r"(u), [xa] "=&r"(xa), [xb] "=&r"(xb)
                   : [k] "r"(k), [off] "r"(off2)
                   : "cc", "memory");
  r0 = a0;
  r1 = a1;
}

__attribute__((always_inline)) inline void DotRaw1(const int8_t* s, const int8_t*& w, int32_t g,
                                                   uint32_t off2, const int32_t* b, int32_t& r0) {
  int32_t a0 = b[0];
  uint32_t t, u, xa, xb;
  __asm__ volatile(TF_FC_LOOP(TF_FC_RAW_G1, TF_FC_X4, "4")
                   : [a0] "+r"(a0), [s] "+r"(s), [p] "+r"(w), [g] "+r"(g), [t] "=&r"(t),
                     [u] "=&r"(u), [xa] "=&r"(xa), [xb] "=&r"(xb)
                   : [off] "r"(off2)
                   : "cc", "memory");
  r0 = a0;
}

#undef TF_FC_RAW_G
#undef TF_FC_RAW_G2
#undef TF_FC_RAW_G1
#undef TF_FC_ROW
#undef TF_FC_G4
#undef TF_FC_G2
#undef TF_FC_G1
#undef TF_FC_X4
#undef TF_FC_LOOP

// The last r = k % 4 inputs (widened tail group words c[0], c[1]) times a row's last r
// weights (read bytewise: no read past the row).
inline int32_t TailDot(const uint32_t* c, const int8_t* w, int32_t r) {
  const int32_t x0 = static_cast<int16_t>(c[0] & 0xFFFFu);
  const int32_t x1 = static_cast<int16_t>(c[1] & 0xFFFFu);
  const int32_t x2 = static_cast<int16_t>(c[0] >> 16);
  int32_t s = x0 * w[0];
  if (r > 1) s += x1 * w[1];
  if (r > 2) s += x2 * w[2];
  return s;
}

// ---- Requantization shortcuts -------------------------------------------------------------
//
// Preconditions (FastOk): shift s in [-20, -1] (e = -s in [1, 20]) and multiplier m = 0 or
// m in [2^30, 2^31). A is the int32 accumulator (bias included, wrapped like __ref's),
// D = QADD(A, A) (saturating 2A), C = (2 * output_offset + 1) * 2^(e - 1).
//
// Double rounding (fx::MultiplyByQuantizedMultiplier, s < 0): RoundingDivideByPOT(h, e) with
// h = SRDHM(A, m) = floor((A*m + 2^30) / 2^31) (gemmlowp's nudge-and-truncate equals this
// floor for both signs). Claim: result + offset = (SMMLAR(D, m, C) + (D >> 31)) >> e (ASR).
//  * |A| < 2^30: D = 2A exactly, SMMLAR(D, m, C) = C + floor((2Am + 2^31) / 2^32) = C + h.
//    RoundingDivideByPOT(h, e) (ties away from zero) = (h + 2^(e-1) - [h < 0]) >> e: for
//    h >= 0 both add 1 iff the remainder is >= 2^(e-1); for h < 0 gemmlowp adds 1 iff the
//    remainder exceeds 2^(e-1), which is what subtracting 1 before the floor does. [h < 0]
//    may be replaced by [D < 0]: D >= 0 implies h >= 0 (m >= 0); D < 0 implies h <= 0, and
//    for h = 0 both forms give (2^(e-1) - 1 or 2^(e-1)) >> e = 0. Adding offset * 2^e before
//    the shift adds exactly offset after it. No overflow: |h| <= 2^30, |C| < 2^28.
//  * A >= 2^30 (D saturated to 2^31 - 1): m = 0 gives h = 0 in both. Otherwise the exact
//    h >= 2^29 so the exact result is >= 2^(29-e) - 1 >= 511, plus offset >= 383; ours:
//    SMMLAR >= C + 2^29 - 1, result >= 2^(29-e) - 129 >= 383 too. Both clamp to act_max.
//    A < -2^30 symmetrically clamps to act_min in both (|ours| stays < 2^31).
// Single rounding (TFLITE_SINGLE_ROUNDING): floor((A*m + 2^(30+e)) / 2^(31+e)). For
// |A| < 2^30 this is floor((D*m + 2^(31+e)) / 2^(32+e)) = (floor(D*m / 2^32) + 2^(e-1)) >> e
// (2^(31+e) is a multiple of 2^32), i.e. (SMMLA(D, m, C) >> e) with the offset folded in the
// same way; saturated D clamps as above (|exact| >= 2^(29-e) - 1).
struct FastQ {
  int32_t m, c, e;
};

inline FastQ MakeFastQ(int32_t m, int32_t shift, int32_t output_offset) {
  const int32_t e = -shift;
  return {m, (2 * output_offset + 1) * (int32_t{1} << (e - 1)), e};
}

inline bool FastOk(const int32_t* mult, const int32_t* shift, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    if (shift[i] < -20 || shift[i] > -1) return false;
    if (mult[i] != 0 && mult[i] < (int32_t{1} << 30)) return false;
  }
  return true;
}

inline int32_t Smmlar(int32_t a, int32_t b, int32_t acc) {
  int32_t r;
  __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  return r;
}

inline int32_t Smmla(int32_t a, int32_t b, int32_t acc) {
  int32_t r;
  __asm__("smmla %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  return r;
}

// Requantized value + output offset (before any clamp); kSingle: single rounding.
template <bool kSingle>
inline int32_t FastRequant(int32_t acc, const FastQ& q) {
  const int32_t d = __qadd(acc, acc);
  if constexpr (kSingle) {
    return Smmla(d, q.m, q.c) >> q.e;
  } else {
    return (Smmlar(d, q.m, q.c) + (d >> 31)) >> q.e;
  }
}

}  // namespace tinyforge::dspfc

#endif  // TINYFORGE_KERNELS_FC_DSP_FC_H_
