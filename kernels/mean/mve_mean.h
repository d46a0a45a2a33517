// Internal header of s8_mean__mve (Helium): the vector requantization its dispatcher
// (s8_mean__mve.cc) and its path linked on demand share, and that path:
//   s8_mean__mve__few  s8_mean__mve_few.cc  2..16 channels over at most 256 rows, output
//                                          shift <= 0 (mean.inc)
// Only included inside `#if TF_HAVE_MVE` (kernels/common/isa.h). The helpers keep internal
// linkage (an anonymous namespace, as when they lived in s8_mean__mve.cc alone: GCC then
// compiles the dispatcher's loops as before).
#ifndef TINYFORGE_KERNELS_MEAN_MVE_MEAN_H_
#define TINYFORGE_KERNELS_MEAN_MVE_MEAN_H_

#include <arm_mve.h>

#include <cstdint>

#include "kernels/common/paths.h"
#include "kernels/mean/mean.h"
#include "kernels/mean/mean_out.h"

namespace {

namespace mean = tinyforge::mean;

constexpr int32_t kChunk = 256;  // rows per int16 accumulation

// The requantization of mean::Out, 4 outputs a vector, by mode (chosen once per call).
enum Mode : int32_t { kScalar, kSingleLeft, kSingleN0, kSingleN, kSingleBig, kDouble };

struct Req {
  Mode mode;
  int32_t zps, multiplier, shift, n, zp_n, out_zp;
};

[[maybe_unused]] Req MakeReq(const s8_mean_params& p, int32_t zps) {
  Req q{kDouble, zps, p.multiplier, p.shift, p.shift > 0 ? 0 : -p.shift, 0, p.output_zero_point};
  if (p.rounding != TF_ROUNDING_SINGLE) return q;
  if (p.shift > 0) {
    // (x * m + 2^(30 - s)) >> (31 - s) is VQRDMULH(x << s, m) while x << s fits int32:
    // |x| <= 255 * reduce_size (a global mean over few rows, ResNet's 2x2: s > 0).
    q.mode = (int64_t{p.reduce_size} * 255) << p.shift >= (int64_t{1} << 31) ? kScalar
                                                                             : kSingleLeft;
    return q;
  }
  // (x * m + 2^(30 + n)) >> (31 + n): VRSHL(VQDMULH(x, m), -n) for n >= 1 (a floor of a
  // floor), VQRDMULH for n == 0; the output zero point added before the rounding shift as
  // zp << n (exact), by VQDMLASH.
  q.mode = q.n == 0 ? kSingleN0 : q.n < 24 ? kSingleN : kSingleBig;
  q.zp_n = q.n < 24 ? p.output_zero_point * (1 << q.n) : 0;
  return q;
}

// Four sums requantized, offset and clamped to int8 (in int32 lanes). mode != kScalar.
inline int32x4_t Req4(const Req& q, int32x4_t sums) {
  int32x4_t x = vsubq_n_s32(sums, q.zps);  // wrapping, as fx::WrapSub
  int32x4_t y;
  switch (q.mode) {
    case kSingleLeft:
      y = vaddq_n_s32(vqrdmulhq_n_s32(vshlq_r_s32(x, q.shift), q.multiplier), q.out_zp);
      break;
    case kSingleN0:
      y = vaddq_n_s32(vqrdmulhq_n_s32(x, q.multiplier), q.out_zp);
      break;
    case kSingleN:
      y = vrshlq_n_s32(vqdmlashq_n_s32(x, vdupq_n_s32(q.multiplier), q.zp_n), -q.n);
      break;
    case kSingleBig:
      y = vaddq_n_s32(vrshlq_n_s32(vqdmulhq_n_s32(x, q.multiplier), -q.n), q.out_zp);
      break;
    default:  // kDouble
      x = vshlq_r_s32(x, q.shift > 0 ? q.shift : 0);  // wrapping, as fx::WrapShiftLeft
      x = vqrdmulhq_n_s32(x, q.multiplier);
      if (q.n > 0) {
        x = vqaddq_s32(x, vshrq_n_s32(x, 31));  // x - 1 for x < 0: ties away from zero
        x = vrshlq_n_s32(x, -q.n);
      }
      y = vaddq_n_s32(x, q.out_zp);
      break;
  }
  return vminq_s32(vmaxq_s32(y, vdupq_n_s32(-128)), vdupq_n_s32(127));
}

// m outputs of sums (m <= kBlock) as mean::Out computes them.
[[maybe_unused]] void Requantize(const s8_mean_params& p, const Req& q, const int32_t* sums,
                                 int32_t m, int8_t* out) {
  if (q.mode == kScalar) {
    for (int32_t k = 0; k < m; ++k) out[k] = mean::Out(p, sums[k], q.zps);
    return;
  }
  for (int32_t k = 0; k < m; k += 4) {
    const mve_pred16_t pr = vctp32q(static_cast<uint32_t>(m - k));
    vstrbq_p_s32(out + k, Req4(q, vld1q_s32(sums + k)), pr);
  }
}

// Eight int16 sums (one chunk's) requantized straight from the accumulator: even and odd
// lanes widened, requantized, narrowed back in place and stored as bytes (`pr`: 16-bit lanes).
inline void Store8(const Req& q, int16x8_t a, int8_t* out, mve_pred16_t pr) {
  const int32x4_t even = Req4(q, vmovlbq_s16(a)), odd = Req4(q, vmovltq_s16(a));
  const int16x8_t y = vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), even), odd);
  vstrbq_p_s16(out, y, pr);
}

}  // namespace

// The path, linked on demand (kernels/common/paths.h; mean.inc): inner in [2, 16],
// reduce_size <= kChunk, shift <= 0 (never MakeReq's kScalar).
extern "C" void s8_mean__mve__few(const s8_mean_params* params, const int8_t* input,
                                  int8_t* output) TF_PATH_WEAK;

#endif  // TINYFORGE_KERNELS_MEAN_MVE_MEAN_H_
