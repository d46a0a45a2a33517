// s8_bmm__mve's small-depth path (internal header, only inside `#if TF_HAVE_MVE`): depth
// <= 32, single rounding, shift in [-24, -1], output clamp the int8 range (attention's
// q k^T and p v at head sizes 16 and 32; s8_bmm_mve_small in bmm.h).
//
// Per batch both operands become rows of KP = 16 or 32 bytes, zeros past the depth: rhs rows
// read in place when stored [cols, depth] with depth == KP, else copied (a vector gather per
// 16 bytes for the [depth, cols] layout: no byte-wise transpose); lhs rows are always copied,
// each followed by its int32 offset term (rhs_offset * (rowsum + depth * lhs_offset)), in
// chunks of at most kChunk rows. Then rhs rows stay in q4..q7 while every lhs row streams
// past once (assembly, a low-overhead loop):
//   KP 16: 4 rhs rows, per lhs row 1 VLDRB + 4 VMLADAV + LDR (its term) + 2 VMOV + 2 VADD
//          (column terms, row term) + 3 requantization + VSTRB.32 of 4 outputs + ADD + LE:
//          16 instructions per 64 MACs;
//   KP 32: 2 rhs rows x 2 chunks, per 2 lhs rows 4 VLDRB + 8 VMLADAVA (the row terms as start
//          values: 2 LDR + 2 MOV) + 2 VMOV + VADD + 4 requantization + a scatter store of the
//          2 x 2 block + ADD + LE: 26 per 128 MACs.
// Requantization (the int8 clamp folded in, n = -shift in [1, 24]):
//   t = sat(floor(2 acc m / 2^32) + off 2^n + 2^(n-1))  VQDMLASH (KP 16), VQDMULH + VQADD (32)
//   out = sat32(t << (24 - n)) >> 24                     VQSHL by register, VSHR #24
// floor(2 acc m / 2^32) is VQDMULH's exact value (m >= 0), so t >> n is fx's single rounding
// plus the offset; where t or t << (24 - n) saturates the true result is beyond the int8
// range on the same side (|t| >= 2^31 - 1 >= 127.99 * 2^n for n <= 24), as is the clamp's.
// Leftover columns (cols % 4, or the odd column) and the odd row go through the general 2 x 2
// blocks of s8_bmm__mve.cc.
#ifndef TINYFORGE_KERNELS_BMM_MVE_BMM_SMALL_H_
#define TINYFORGE_KERNELS_BMM_MVE_BMM_SMALL_H_

#include <arm_mve.h>

#include <cstdint>

#include "kernels/bmm/bmm.h"

namespace tinyforge::bmm_small {

// Rows of the lhs copied per chunk.
inline constexpr int32_t kChunk = 64;

// How a strided row chunk is read: contiguous, 16 bytes by 8-bit offsets (15 * stride <
// 256), the even and odd elements by 16-bit offsets (15 * stride <= 65535), or bytewise.
enum ChunkKind { kContiguous, kGather8, kGather16, kBytes };

[[gnu::noipa]] inline int8x16_t BytesChunk(const int8_t* src, int32_t stride, int32_t n) {
  alignas(16) int8_t t[16] = {};
  for (int32_t i = 0; i < n; ++i) t[i] = src[i * stride];
  return vld1q_s8(t);
}

// Up to 16 bytes of a row whose elements are `stride` apart, zeros past n (1..16); o8, oe, oo:
// the 8-bit offsets of 16 elements and the 16-bit offsets of the even and odd ones.
template <int kKind>
inline int8x16_t Chunk(const int8_t* src, int32_t stride, int32_t n, uint8x16_t o8,
                       uint16x8_t oe, uint16x8_t oo) {
  if constexpr (kKind == kContiguous) {
    return vldrbq_z_s8(src, vctp8q(static_cast<uint32_t>(n)));
  } else if constexpr (kKind == kGather8) {
    return vldrbq_gather_offset_z_s8(src, o8, vctp8q(static_cast<uint32_t>(n)));
  } else if constexpr (kKind == kGather16) {  // even elements to the even bytes, odd to odd
    const int16x8_t e =
        vldrbq_gather_offset_z_s16(src, oe, vctp16q(static_cast<uint32_t>(n + 1) >> 1));
    const int16x8_t o = vldrbq_gather_offset_z_s16(src, oo, vctp16q(static_cast<uint32_t>(n) >> 1));
    return vmovntq_s16(vmovnbq_s16(vdupq_n_s8(0), e), o);
  } else {
    return BytesChunk(src, stride, n);
  }
}

template <int kKind>
[[gnu::noipa]] void PackRowsOf(const int8_t* src, int32_t rows, int32_t row_step,
                               int32_t stride, int32_t depth, int32_t kp, int8_t* dst,
                               int32_t dst_step, int8_t* term, int32_t term_step, int32_t scale,
                               int32_t add) {
  const uint8x16_t o8 = vmulq_n_u8(vidupq_n_u8(0, 1), static_cast<uint8_t>(stride));
  const uint16x8_t oe = vmulq_n_u16(vidupq_n_u16(0, 2), static_cast<uint16_t>(stride));
  const uint16x8_t oo = vaddq_n_u16(oe, static_cast<uint16_t>(stride));
  const int32_t last = depth - (kp - 16);  // elements in the last chunk (1..16)
  for (int32_t r = 0; r < rows; ++r, src += row_step, dst += dst_step, term += term_step) {
    int32_t s = 0;
    if (kp == 32) {
      const int8x16_t v = Chunk<kKind>(src, stride, 16, o8, oe, oo);
      vst1q_s8(dst, v);
      s = vaddvaq_s8(s, v);
    }
    const int8x16_t v = Chunk<kKind>(src + (kp - 16) * stride, stride, last, o8, oe, oo);
    vst1q_s8(dst + kp - 16, v);
    s = vaddvaq_s8(s, v);
    const uint32_t t = static_cast<uint32_t>(s) * static_cast<uint32_t>(scale) +
                       static_cast<uint32_t>(add);
    *reinterpret_cast<int32_t*>(term) = static_cast<int32_t>(t);
  }
}

// Copies `rows` rows (row r at src + r * row_step, its elements `stride` apart) as rows of kp
// (16 or 32) bytes at dst + r * dst_step, zeros past depth, and writes each row's sum of
// elements times `scale` plus `add` (wrapping) at term + r * term_step (bytes).
inline void PackRows(const int8_t* src, int32_t rows, int32_t row_step, int32_t stride,
                     int32_t depth, int32_t kp, int8_t* dst, int32_t dst_step, int8_t* term,
                     int32_t term_step, int32_t scale, int32_t add) {
  if (stride == 1) {
    PackRowsOf<kContiguous>(src, rows, row_step, stride, depth, kp, dst, dst_step, term,
                            term_step, scale, add);
  } else if (15 * stride < 256) {
    PackRowsOf<kGather8>(src, rows, row_step, stride, depth, kp, dst, dst_step, term, term_step,
                         scale, add);
  } else if (15 * stride <= 65535) {
    PackRowsOf<kGather16>(src, rows, row_step, stride, depth, kp, dst, dst_step, term,
                          term_step, scale, add);
  } else {
    PackRowsOf<kBytes>(src, rows, row_step, stride, depth, kp, dst, dst_step, term, term_step,
                       scale, add);
  }
}

// KP 16: lhs rows lp (16 bytes + int32 term each, 20 apart), m >= 1 of them; 4 rhs rows of
// 16 bytes at w; col = their column terms; out[i * n + 0..3].
inline void Cols4(const int8_t* lp, int32_t m, const int8_t* w, int32x4_t col, int32x4_t mv,
                  int32_t rc, int32_t rs, int8_t* out, int32_t n) {
  // s0 carries w into the asm and the loop count is in lr itself: 13 core registers.
  auto s0 = reinterpret_cast<intptr_t>(w);
  int32_t s1, s2, s3, t;
  register int32_t count __asm__("lr") = m;
  __asm__ volatile(
      "vldrb.8 q4, [%[s0]], #16\n\t"
      "vldrb.8 q5, [%[s0]], #16\n\t"
      "vldrb.8 q6, [%[s0]], #16\n\t"
      "vldrb.8 q7, [%[s0]]\n\t"
      "dls lr, lr\n"
      "1:\n\t"
      "vldrb.8 q0, [%[a]], #16\n\t"
      "vmladav.s8 %[s0], q0, q4\n\t"
      "vmladav.s8 %[s1], q0, q5\n\t"
      "vmladav.s8 %[s2], q0, q6\n\t"
      "vmladav.s8 %[s3], q0, q7\n\t"
      "ldr %[t], [%[a]], #4\n\t"
      // q1 = {s0, s1, s2, s3}: VMOV Qd[2], Qd[0], Rt, Rt2 puts Rt in lane 0 (as GCC's
      // vcreateq and QEMU read the encoding).
      "vmov q1[2], q1[0], %[s0], %[s2]\n\t"
      "vmov q1[3], q1[1], %[s1], %[s3]\n\t"
      "vadd.i32 q1, q1, %q[col]\n\t"
      "vadd.i32 q1, q1, %[t]\n\t"
      "vqdmlash.s32 q1, %q[mv], %[rc]\n\t"
      "vqshl.s32 q1, %[rs]\n\t"
      "vshr.s32 q1, q1, #24\n\t"
      "vstrb.32 q1, [%[o]]\n\t"
      "add %[o], %[n]\n\t"
      "le lr, 1b\n"
      : [s0] "+&Te"(s0), [s1] "=&Te"(s1), [s2] "=&Te"(s2), [s3] "=&Te"(s3), [t] "=&r"(t),
        [a] "+r"(lp), [o] "+r"(out), "+r"(count)
      : [col] "w"(col), [mv] "w"(mv), [rc] "r"(rc), [rs] "r"(rs), [n] "r"(n)
      : "q0", "q1", "q4", "q5", "q6", "q7", "memory");
}

// KP 32: lhs rows lp (32 bytes + int32 term each, 36 apart), 2 * pairs of them (pairs >= 1);
// 2 rhs rows of 32 bytes at w; col = {c0, c1, c0, c1}; off = {0, 1, n, n + 1};
// out[i * n + 0..1].
inline void Cols2(const int8_t* lp, int32_t pairs, const int8_t* w, int32x4_t col,
                  uint32x4_t off, int32_t mult, int32_t rc, int32_t rs, int8_t* out,
                  int32_t n2) {
  auto s0 = reinterpret_cast<intptr_t>(w);  // as in Cols4
  int32_t s1, s2, s3;
  register int32_t count __asm__("lr") = pairs;
  __asm__ volatile(
      "vldrb.8 q4, [%[s0]], #16\n\t"
      "vldrb.8 q5, [%[s0]], #16\n\t"
      "vldrb.8 q6, [%[s0]], #16\n\t"
      "vldrb.8 q7, [%[s0]]\n\t"
      "dls lr, lr\n"
      "1:\n\t"
      "vldrb.8 q0, [%[a]], #16\n\t"
      "vldrb.8 q1, [%[a]], #16\n\t"
      "ldr %[s0], [%[a]], #4\n\t"
      "mov %[s1], %[s0]\n\t"
      "vmladava.s8 %[s0], q0, q4\n\t"
      "vmladava.s8 %[s0], q1, q5\n\t"
      "vmladava.s8 %[s1], q0, q6\n\t"
      "vmladava.s8 %[s1], q1, q7\n\t"
      "vldrb.8 q0, [%[a]], #16\n\t"
      "vldrb.8 q1, [%[a]], #16\n\t"
      "ldr %[s2], [%[a]], #4\n\t"
      "mov %[s3], %[s2]\n\t"
      "vmladava.s8 %[s2], q0, q4\n\t"
      "vmladava.s8 %[s2], q1, q5\n\t"
      "vmladava.s8 %[s3], q0, q6\n\t"
      "vmladava.s8 %[s3], q1, q7\n\t"
      "vmov q1[2], q1[0], %[s0], %[s2]\n\t"
      "vmov q1[3], q1[1], %[s1], %[s3]\n\t"
      "vadd.i32 q1, q1, %q[col]\n\t"
      "vqdmulh.s32 q1, q1, %[mult]\n\t"
      "vqadd.s32 q1, q1, %[rc]\n\t"
      "vqshl.s32 q1, %[rs]\n\t"
      "vshr.s32 q1, q1, #24\n\t"
      "vstrb.32 q1, [%[o], %q[off]]\n\t"
      "add %[o], %[n2]\n\t"
      "le lr, 1b\n"
      : [s0] "+&Te"(s0), [s1] "=&Te"(s1), [s2] "=&Te"(s2), [s3] "=&Te"(s3), [a] "+r"(lp),
        [o] "+r"(out), "+r"(count)
      : [col] "w"(col), [off] "w"(off), [mult] "r"(mult), [rc] "r"(rc), [rs] "r"(rs),
        [n2] "r"(n2)
      : "q0", "q1", "q4", "q5", "q6", "q7", "memory");
}

}  // namespace tinyforge::bmm_small

#endif  // TINYFORGE_KERNELS_BMM_MVE_BMM_SMALL_H_
