// MEAN / SUM for Cortex-M55 (Helium / MVE), bit-identical to s8_mean__ref.
//
// Lanes are inner positions (channels: contiguous in NHWC). 32 channels at a time are summed
// down the reduced rows in four int16x8 accumulators (one widening byte load and one add per
// 8 inputs; fewer than 32 channels load only the vectors that hold some, the last one
// predicated; 2..16 channels over at most 256 rows take the path s8_mean__mve__few when it
// is linked, mve_mean.h),
// exact for 256 rows (|sum| <= 256 * 128): such a reduction is requantized straight from the
// accumulators (even and odd lanes widened, narrowed back: Store8); longer ones add each
// 256-row chunk into int32 sums. inner == 1 (contiguous inputs per output) sums 16 bytes per
// VADDVA, or, at most 16 per output and 4 outputs or more, 4 outputs per vector by byte
// gathers.
// The outputs are requantized 4 at a time under TFLM's double rounding: VQRDMULH is gemmlowp's
// SaturatingRoundingDoublingHighMul exactly, and RoundingDivideByPOT (ties away from zero) is
// VRSHL of x - 1 for negative x (ties toward +inf otherwise); single rounding is VQDMULH and
// VRSHL (VQRDMULH for shift 0; a positive shift s VQRDMULH(x << s) while x << s fits int32,
// else the scalar step of mean_out.h).
#include "kernels/mean/mean.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include "kernels/mean/mve_mean.h"

namespace {

constexpr int32_t kBlock = 32;   // channels per pass
constexpr int32_t kFewRows = 16;  // inner 1: at most this many rows per output by gathers

// Every call but those the path takes.
__attribute__((noinline)) void General(const s8_mean_params* params, const int8_t* input,
                                       int8_t* output) {
  const s8_mean_params& p = *params;
  const int32_t zps = mean::ZeroPointSum(p);
  const Req rq = MakeReq(p, zps);
  const int32_t R = p.reduce_size, C = p.inner;
  // One chunk and a vector requantization: the int16 sums go straight to the outputs.
  const bool direct = R <= kChunk && rq.mode != kScalar;
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
      Requantize(p, rq, sums, m, output + o);
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
    int32_t c = 0;
    if (direct) {  // whole blocks of 32 channels: no predicates, no spilled sums
      const mve_pred16_t all = vctp16q(8);
      for (; c + kBlock <= C; c += kBlock) {
        const int8_t* q = in + c;
        int16x8_t a0 = vdupq_n_s16(0), a1 = a0, a2 = a0, a3 = a0;
        for (int32_t r = 0; r < R; ++r, q += C) {
          a0 = vaddq_s16(a0, vldrbq_s16(q));
          a1 = vaddq_s16(a1, vldrbq_s16(q + 8));
          a2 = vaddq_s16(a2, vldrbq_s16(q + 16));
          a3 = vaddq_s16(a3, vldrbq_s16(q + 24));
        }
        Store8(rq, a0, out + c, all);
        Store8(rq, a1, out + c + 8, all);
        Store8(rq, a2, out + c + 16, all);
        Store8(rq, a3, out + c + 24, all);
      }
    }
    for (; c < C; c += kBlock) {
      const int32_t n = C - c;
      const mve_pred16_t p0 = vctp16q(static_cast<uint32_t>(n));
      const mve_pred16_t p1 = vctp16q(static_cast<uint32_t>(n > 8 ? n - 8 : 0));
      const mve_pred16_t p2 = vctp16q(static_cast<uint32_t>(n > 16 ? n - 16 : 0));
      const mve_pred16_t p3 = vctp16q(static_cast<uint32_t>(n > 24 ? n - 24 : 0));
      int32_t sums[kBlock];
      int16_t part[kBlock];
      const int8_t* q = in + c;
      for (int32_t r = R; r > 0;) {
        const bool first = r == R;  // the first chunk: the sums start with it
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
        if (direct) {
          int8_t* o8 = out + c;
          Store8(rq, a0, o8, p0);
          if (n > 8) Store8(rq, a1, o8 + 8, p1);
          if (n > 16) Store8(rq, a2, o8 + 16, p2);
          if (n > 24) Store8(rq, a3, o8 + 24, p3);
          break;
        }
        vst1q_s16(part, a0);
        vst1q_s16(part + 8, a1);
        vst1q_s16(part + 16, a2);
        vst1q_s16(part + 24, a3);
        for (int32_t k = 0; k < kBlock; k += 4) {
          const int32x4_t chunk = vldrhq_s32(part + k);
          vst1q_s32(sums + k, first ? chunk : vaddq_s32(vld1q_s32(sums + k), chunk));
        }
      }
      if (direct) continue;
      Requantize(p, rq, sums, n < kBlock ? n : kBlock, out + c);
    }
  }
}

}  // namespace

// 2..16 channels over at most 256 rows, output shift <= 0 (vector requantization): the path
// linked on demand (mve_mean.h), else
// General; one tail call either way (a test of the path at the top of General's own code
// cost its loops 3 to 22 instructions an op, GCC allocating registers differently).
extern "C" void s8_mean__mve(const s8_mean_params* params, const int8_t* input,
                             int8_t* output) {
  const s8_mean_params& p = *params;
  const bool few = p.inner > 1 && p.inner <= 16 && p.reduce_size <= kChunk && p.shift <= 0 &&
                   s8_mean__mve__few != nullptr;
  (few ? s8_mean__mve__few : &General)(params, input, output);
}

#endif  // TF_HAVE_MVE
