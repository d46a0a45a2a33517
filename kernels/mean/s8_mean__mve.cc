// MEAN / SUM for Cortex-M55 (Helium / MVE), bit-identical to s8_mean__ref.
//
// Lanes are inner positions (channels: contiguous in NHWC). 32 channels at a time are summed
// down the reduced rows in four int16x8 accumulators (one widening byte load and one add per
// 8 inputs; fewer than 32 channels load only the vectors that hold some, the last one
// predicated: SqueezeNet's mean over 10 class maps, one unpredicated and one predicated), exact for 256 rows (|sum| <= 256 * 128); longer reductions add each 256-row
// chunk into int32 sums. inner == 1 (contiguous inputs per output) sums 16 bytes per VADDVA,
// or, at most 16 per output and 4 outputs or more, 4 outputs per vector by byte gathers.
// The outputs are requantized 4 at a time under TFLM's double rounding: VQRDMULH is gemmlowp's
// SaturatingRoundingDoublingHighMul exactly, and RoundingDivideByPOT (ties away from zero) is
// VRSHL of x - 1 for negative x (ties toward +inf otherwise); single rounding is VQDMULH and
// VRSHL (VQRDMULH for shift 0; a positive shift s VQRDMULH(x << s) while x << s fits int32,
// else the scalar step of mean_out.h).
#include "kernels/mean/mean.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/mean/mean_out.h"

namespace mean = tinyforge::mean;

namespace {

constexpr int32_t kChunk = 256;  // rows per int16 accumulation
constexpr int32_t kBlock = 32;   // channels per pass
constexpr int32_t kFewRows = 16;  // inner 1: at most this many rows per output by gathers

// m outputs of sums (m <= kBlock) as mean::Out computes them.
void Requantize(const s8_mean_params& p, const int32_t* sums, int32_t m, int32_t zps,
                int8_t* out) {
  if (p.rounding == TF_ROUNDING_SINGLE) {
    if (p.shift > 0) {
      // (x * m + 2^(30 - s)) >> (31 - s) is VQRDMULH(x << s, m) while x << s fits int32:
      // |x| <= 255 * reduce_size (a global mean over few rows, ResNet's 2x2: s > 0).
      if ((int64_t{p.reduce_size} * 255) << p.shift >= (int64_t{1} << 31)) {
        for (int32_t k = 0; k < m; ++k) out[k] = mean::Out(p, sums[k], zps);
        return;
      }
      for (int32_t k = 0; k < m; k += 4) {
        const mve_pred16_t pr = vctp32q(static_cast<uint32_t>(m - k));
        const int32x4_t x = vshlq_r_s32(vsubq_n_s32(vld1q_s32(sums + k), zps), p.shift);
        int32x4_t y = vaddq_n_s32(vqrdmulhq_n_s32(x, p.multiplier), p.output_zero_point);
        y = vminq_s32(vmaxq_s32(y, vdupq_n_s32(-128)), vdupq_n_s32(127));
        vstrbq_p_s32(out + k, y, pr);
      }
      return;
    }
    // (x * m + 2^(30 + n)) >> (31 + n): VRSHL(VQDMULH(x, m), -n) for n >= 1 (a floor of a
    // floor), VQRDMULH for n == 0; the output zero point added before the rounding shift as
    // zp << n (exact), by VQDMLASH.
    const int32x4_t vm = vdupq_n_s32(p.multiplier);
    const int32_t n = -p.shift;
    const int32_t zp_n = n < 24 ? p.output_zero_point * (1 << n) : 0;
    for (int32_t k = 0; k < m; k += 4) {
      const mve_pred16_t pr = vctp32q(static_cast<uint32_t>(m - k));
      const int32x4_t x = vsubq_n_s32(vld1q_s32(sums + k), zps);  // wrapping, as fx::WrapSub
      int32x4_t y;
      if (n == 0) {
        y = vaddq_n_s32(vqrdmulhq_n_s32(x, p.multiplier), p.output_zero_point);
      } else if (n < 24) {
        y = vrshlq_n_s32(vqdmlashq_n_s32(x, vm, zp_n), -n);
      } else {
        y = vaddq_n_s32(vrshlq_n_s32(vqdmulhq_n_s32(x, p.multiplier), -n), p.output_zero_point);
      }
      y = vminq_s32(vmaxq_s32(y, vdupq_n_s32(-128)), vdupq_n_s32(127));
      vstrbq_p_s32(out + k, y, pr);
    }
    return;
  }
  const int32_t left = p.shift > 0 ? p.shift : 0;
  const int32_t right = p.shift > 0 ? 0 : -p.shift;
  for (int32_t k = 0; k < m; k += 4) {
    const mve_pred16_t pr = vctp32q(static_cast<uint32_t>(m - k));
    int32x4_t x = vsubq_n_s32(vld1q_s32(sums + k), zps);  // wrapping, as fx::WrapSub
    x = vshlq_s32(x, vdupq_n_s32(left));                     // wrapping, as fx::WrapShiftLeft
    x = vqrdmulhq_n_s32(x, p.multiplier);
    if (right > 0) {
      x = vqaddq_s32(x, vshrq_n_s32(x, 31));  // x - 1 for x < 0: ties away from zero
      x = vrshlq_s32(x, vdupq_n_s32(-right));
    }
    x = vaddq_n_s32(x, p.output_zero_point);
    x = vminq_s32(vmaxq_s32(x, vdupq_n_s32(-128)), vdupq_n_s32(127));
    vstrbq_p_s32(out + k, x, pr);
  }
}

}  // namespace

extern "C" void s8_mean__mve(const s8_mean_params* params, const int8_t* input,
                             int8_t* output) {
  const s8_mean_params& p = *params;
  const int32_t zps = mean::ZeroPointSum(p);
  const int32_t R = p.reduce_size, C = p.inner;
  if (C == 1 && R <= kFewRows && p.outer >= 4) {
    // Few inputs per output, outputs apart by R: 4 outputs per vector, one byte gather per
    // row (offsets {0, R, 2R, 3R}), up to 32 sums requantized together.
    const uint32x4_t off = vmulq_n_u32(vidupq_n_u32(0, 1), static_cast<uint32_t>(R));
    for (int32_t o = 0; o < p.outer; o += kBlock) {
      const int32_t m = p.outer - o < kBlock ? p.outer - o : kBlock;
      int32_t sums[kBlock];
      for (int32_t k = 0; k < m; k += 4) {
        const mve_pred16_t pr = vctp32q(static_cast<uint32_t>(m - k));
        const int8_t* q = input + (o + k) * R;
        int32x4_t acc = vdupq_n_s32(0);
        for (int32_t r = 0; r < R; ++r) {
          acc = vaddq_s32(acc, vldrbq_gather_offset_z_s32(q + r, off, pr));
        }
        vst1q_s32(sums + k, acc);
      }
      Requantize(p, sums, m, zps, output + o);
    }
    return;
  }
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* in = input + o * R * C;
    int8_t* out = output + o * C;
    if (C == 1) {
      int32_t total = 0;
      const int8_t* q = in;
      int32_t r = R;
      for (; r >= 16; r -= 16, q += 16) total = vaddvaq_s8(total, vld1q_s8(q));
      if (r > 0) {
        const mve_pred16_t pr = vctp8q(static_cast<uint32_t>(r));
        total = vaddvaq_p_s8(total, vldrbq_z_s8(q, pr), pr);
      }
      out[0] = mean::Out(p, total, zps);
      continue;
    }
    for (int32_t c = 0; c < C; c += kBlock) {
      const int32_t n = C - c;
      const mve_pred16_t p0 = vctp16q(static_cast<uint32_t>(n));
      const mve_pred16_t p1 = vctp16q(static_cast<uint32_t>(n > 8 ? n - 8 : 0));
      const mve_pred16_t p2 = vctp16q(static_cast<uint32_t>(n > 16 ? n - 16 : 0));
      const mve_pred16_t p3 = vctp16q(static_cast<uint32_t>(n > 24 ? n - 24 : 0));
      int32_t sums[kBlock] = {};
      int16_t part[kBlock];
      const int8_t* q = in + c;
      for (int32_t r = R; r > 0;) {
        int32_t rows = r < kChunk ? r : kChunk;
        r -= rows;
        int16x8_t a0 = vdupq_n_s16(0), a1 = a0, a2 = a0, a3 = a0;
        if (n >= kBlock) {
          for (; rows > 0; --rows, q += C) {
            a0 = vaddq_s16(a0, vldrbq_s16(q));
            a1 = vaddq_s16(a1, vldrbq_s16(q + 8));
            a2 = vaddq_s16(a2, vldrbq_s16(q + 16));
            a3 = vaddq_s16(a3, vldrbq_s16(q + 24));
          }
        } else if (n <= 8) {  // only the vectors holding channels: the last one predicated
          for (; rows > 0; --rows, q += C) a0 = vaddq_s16(a0, vldrbq_z_s16(q, p0));
        } else if (n <= 16) {
          for (; rows > 0; --rows, q += C) {
            a0 = vaddq_s16(a0, vldrbq_s16(q));
            a1 = vaddq_s16(a1, vldrbq_z_s16(q + 8, p1));
          }
        } else if (n <= 24) {
          for (; rows > 0; --rows, q += C) {
            a0 = vaddq_s16(a0, vldrbq_s16(q));
            a1 = vaddq_s16(a1, vldrbq_s16(q + 8));
            a2 = vaddq_s16(a2, vldrbq_z_s16(q + 16, p2));
          }
        } else {
          for (; rows > 0; --rows, q += C) {
            a0 = vaddq_s16(a0, vldrbq_s16(q));
            a1 = vaddq_s16(a1, vldrbq_s16(q + 8));
            a2 = vaddq_s16(a2, vldrbq_s16(q + 16));
            a3 = vaddq_s16(a3, vldrbq_z_s16(q + 24, p3));
          }
        }
        vst1q_s16(part, a0);
        vst1q_s16(part + 8, a1);
        vst1q_s16(part + 16, a2);
        vst1q_s16(part + 24, a3);
        for (int32_t k = 0; k < kBlock; k += 4) {
          vst1q_s32(sums + k, vaddq_s32(vld1q_s32(sums + k), vldrhq_s32(part + k)));
        }
      }
      Requantize(p, sums, n < kBlock ? n : kBlock, zps, out + c);
    }
  }
}

#endif  // TF_HAVE_MVE
