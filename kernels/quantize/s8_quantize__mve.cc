// QUANTIZE float -> int8 and DEQUANTIZE int8 -> float for Cortex-M55 (Helium floating
// point), bit-identical to s8_quantize__ref / s8_dequantize__ref. Four elements per vector:
//   quantize    y1 = the correctly rounded x / scale (quantize_fast.h: one multiply, two
//               FMAs; y0 where y1 is NaN), VCVTA (round half away, NaN -> 0, saturating,
//               as __ref's RoundHalfAwayToInt32), saturating + zero point, clamp, VSTRB.32;
//               eight elements per iteration (two vectors narrowed together, 2.75
//               instructions per element), the last size % 8 four at a time;
//   dequantize  VLDRB.S32, - zero point, VCVT to float, * scale (the same single product
//               as __ref).
// Without MVE-F (an M55 built soft-float) both are __ref.
#include "kernels/common/isa.h"
#include "kernels/quantize/quantize.h"

#if TF_HAVE_MVE

#if TF_HAVE_MVE_FLOAT
#include <arm_mve.h>  // the constant vectors

#include "kernels/quantize/quantize_fast.h"
#endif

extern "C" void s8_quantize__mve(const s8_quantize_params* params, const float* input,
                                 int8_t* output) {
#if TF_HAVE_MVE_FLOAT
  const s8_quantize_params& p = *params;
  if (p.size <= 0) return;
  if (!tinyforge::quantize_fast::ScaleInRange(p.scale)) {
    s8_quantize__ref(params, input, output);
    return;
  }
  const float scale = p.scale;
  const float r = 1.0f / scale;
  const float32x4_t vscale = vdupq_n_f32(scale);
  const int32x4_t lo = vdupq_n_s32(-128), hi = vdupq_n_s32(127);
  const float* src = input;
  int8_t* dst = output;
  // 22 instructions per 8 elements, the same arithmetic as the 4-element loop below: VLD20 /
  // VLD21 deinterleave 8 floats into the even (q0) and odd (q1) elements; y0 = x * r (q2, q3),
  // e = x - y0 * scale in place of x, y1 = y0 + e * r (q4, q5), where y1 is NaN take y0 (it
  // is NaN when x is, and +-inf only when x / scale is beyond 2^28: it then converts to the
  // same saturated int8 as x would); VCVTA; VQMOVNB / VQMOVNT put the even and odd int32
  // results, saturated to int16, back in element order in 16-bit lanes; + zero point
  // (saturating int16: with |zero point| <= 128 a value saturated to int16 still saturates
  // to the same int8); VQMOVNB to int8; VSTRB.16. The rest (size % 8) runs the loop below.
  const int32_t blocks = p.size / 8;
  if (blocks > 0) {
    __asm__ volatile(
        "wls lr, %[blocks], 2f\n"
        "1:\n\t"
        "vld20.32 {q0, q1}, [%[src]]\n\t"
        "vld21.32 {q0, q1}, [%[src]]!\n\t"
        "vmul.f32 q2, q0, %[r]\n\t"
        "vmul.f32 q3, q1, %[r]\n\t"
        "vfms.f32 q0, q2, %q[vs]\n\t"
        "vfms.f32 q1, q3, %q[vs]\n\t"
        "vmov q4, q2\n\t"
        "vmov q5, q3\n\t"
        "vfma.f32 q4, q0, %[r]\n\t"
        "vfma.f32 q5, q1, %[r]\n\t"
        "vcmp.f32 eq, q4, q4\n\t"
        "vpsel q4, q4, q2\n\t"
        "vcmp.f32 eq, q5, q5\n\t"
        "vpsel q5, q5, q3\n\t"
        "vcvta.s32.f32 q4, q4\n\t"
        "vcvta.s32.f32 q5, q5\n\t"
        "vqmovnb.s32 q6, q4\n\t"
        "vqmovnt.s32 q6, q5\n\t"
        "vqadd.s16 q6, q6, %[zp]\n\t"
        "vqmovnb.s16 q6, q6\n\t"
        "vstrb.16 q6, [%[dst]], #8\n\t"
        "le lr, 1b\n"
        "2:\n"
        : [src] "+r"(src), [dst] "+r"(dst)
        : [blocks] "r"(blocks), [r] "r"(r), [zp] "r"(p.zero_point), [vs] "w"(vscale)
        : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "lr", "memory");
  }
  const int32_t rest = p.size - 8 * blocks;
  if (rest == 0) return;
  // 13 instructions per 4 elements. q0 = x; q1 = y0 = x * r; q2 = e = x - y0 * scale
  // (exact); q1 = y1 = y0 + e * r; where y1 is NaN (y0 infinite, or x NaN) take x: it is
  // NaN, infinite or at least 2^28 there, so it converts to 0 or saturates the same way.
  __asm__ volatile(
      "dlstp.32 lr, %[n]\n"
      "1:\n\t"
      "vldrw.32 q0, [%[src]], #16\n\t"
      "vmul.f32 q1, q0, %[r]\n\t"
      "vmov q2, q0\n\t"
      "vfms.f32 q2, q1, %q[vs]\n\t"
      "vfma.f32 q1, q2, %[r]\n\t"
      "vcmp.f32 eq, q1, q1\n\t"
      "vpsel q1, q1, q0\n\t"
      "vcvta.s32.f32 q1, q1\n\t"
      "vqadd.s32 q1, q1, %[zp]\n\t"
      "vmax.s32 q1, q1, %q[lo]\n\t"
      "vmin.s32 q1, q1, %q[hi]\n\t"
      "vstrb.32 q1, [%[dst]], #4\n\t"
      "letp lr, 1b\n"
      : [src] "+r"(src), [dst] "+r"(dst)
      : [n] "r"(rest), [r] "r"(r), [zp] "r"(p.zero_point), [vs] "w"(vscale), [lo] "w"(lo),
        [hi] "w"(hi)
      : "q0", "q1", "q2", "lr", "memory");
#else
  s8_quantize__ref(params, input, output);
#endif
}

extern "C" void s8_dequantize__mve(const s8_dequantize_params* params, const int8_t* input,
                                   float* output) {
#if TF_HAVE_MVE_FLOAT
  const s8_dequantize_params& p = *params;
  if (p.size <= 0) return;
  const int8_t* src = input;
  float* dst = output;
  // 6 instructions per 4 elements: (x - zero point) converted exactly, one rounded product.
  __asm__ volatile(
      "dlstp.32 lr, %[n]\n"
      "1:\n\t"
      "vldrb.s32 q0, [%[src]], #4\n\t"
      "vsub.i32 q0, q0, %[zp]\n\t"
      "vcvt.f32.s32 q0, q0\n\t"
      "vmul.f32 q0, q0, %[scale]\n\t"
      "vstrw.32 q0, [%[dst]], #16\n\t"
      "letp lr, 1b\n"
      : [src] "+r"(src), [dst] "+r"(dst)
      : [n] "r"(p.size), [zp] "r"(p.zero_point), [scale] "r"(p.scale)
      : "q0", "lr", "memory");
#else
  s8_dequantize__ref(params, input, output);
#endif
}

#endif  // TF_HAVE_MVE
