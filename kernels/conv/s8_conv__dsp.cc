// CONV_2D for Cortex-M4/M7/M33 (DSP extension). Bit-identical to s8_conv__ref.
//
// Pixels in tiles of up to 2 * s8_conv_dsp_pairs(p): each pixel's column (its input channels
// for an unpadded 1x1 convolution, otherwise an im2col patch with padded taps at the zero
// point, copied as contiguous kernel-row spans) is widened once to int16 pairs holding
// 2 * (x + input_offset) (kernels/conv/dsp_gemm.h layout), then every channel pair's weights
// stream past the tile's columns: 2 x 2 blocks of SMLADs (dsp::Dot2x2). K % 4 leftover
// inputs: the widened column's last group is zero padded and the channel's last weights are
// pre-widened once per call, so the tail is one more 2 x 2 step.
//
// Channel table (once per call, scratch): every output channel is one of
//   dead  all weights 0: its output is the constant clamp(requant(bias)) for every pixel;
//         such channels skip the GEMM (pruned MobileNet layers have many), a template pixel
//         of these constants is copied to each output pixel first;
//   fast  shift in [-22, -1] (or multiplier 0) and |bias| + K * 255 * 128 < 2^30, so the
//         accumulator X = 2 * acc (doubled inputs, doubled bias) does not overflow;
//   slow  anything else: exact generic requantization (fx::Requantize) of acc recovered as
//         (X - bias) / 2 + bias.
// Fast requantization, e = -shift, c = output_offset * 2^e + 2^(e-1) (|c| < 2^29 + 2^21):
//   double rounding: SRDHM(acc, m) = floor((acc * m + 2^30) / 2^31) (no saturation: m >= 0)
//     = floor((X * m + 2^31) / 2^32), so SMMLAR(X, m, c) = c + SRDHM(acc, m) =: c + h, exact.
//     RoundingDivideByPOT(h, e) + offset = floor((h + c - [h < 0]) / 2^e). [h < 0] may be
//     replaced by [X < 0]: X >= 0 gives h >= 0; X < 0 gives h <= 0, and when h == 0 the -1
//     does not change floor((c - 1) / 2^e) = offset (e >= 1). |h| <= |acc| < 2^30, so
//     h + c - 1 fits int32. Output: (SMMLAR(X, m, c) + (X >> 31)) >> e.
//   single rounding: floor((acc * m + 2^(30+e)) / 2^(31+e)) + offset
//     = floor((X * m + (c << 32)) / 2^(32+e)) = SMMLA(X, m, c) >> e (nested floors).
//   multiplier 0 (TFLite's flushed tiny scales): e = 1, c = 2 * offset + 1 gives offset.
// Then SSAT #8 when the clamp is [-128, 127], else min/max. Grouped convolutions (rare) and
// K > 32000 run the reference loop.
//
// Scratch (conv.inc, s8_conv_dsp_scratch_bytes): widened column pairs, the channel table
// (16 bytes per channel, + 8 with a K % 4 tail), the template pixel, one int8 patch.
#include "kernels/conv/conv.h"

#if defined(__ARM_FEATURE_DSP)

#include "kernels/common/fixed_point.h"
#include "kernels/conv/dsp_gemm.h"

namespace {

namespace dsp = tinyforge::dsp;
namespace fx = tinyforge::fx;

inline int32_t Smmlar(int32_t a, int32_t b, int32_t c) {
  int32_t r;
  __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
inline int32_t Smmla(int32_t a, int32_t b, int32_t c) {
  int32_t r;
  __asm__("smmla %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
// Arithmetic shift right by the bottom byte of s (the ASR-by-register semantics): the
// channel word keeps e in bits 0..7 and the channel index above.
inline int32_t AsrReg(int32_t v, uint32_t s) {
  int32_t r;
  __asm__("asr %0, %1, %2" : "=r"(r) : "r"(v), "r"(s));
  return r;
}
inline uint32_t Sadd16(uint32_t a, uint32_t b) { return __sadd16(a, b); }

// One fast or slow channel.
struct Chan {
  int32_t init;  // fast: 2 * bias; slow: 0
  int32_t m;     // multiplier
  int32_t c;     // fast: output_offset * 2^e + 2^(e-1)
  uint32_t ei;   // e | index << 8
};

// Widens n int8 values to int16 pairs 2 * (x + offset) (dsp::Widen's layout and padding).
inline void Widen2(const int8_t* src, int32_t n, int32_t offset, uint32_t* dst) {
  const uint32_t off2 = (static_cast<uint32_t>(offset) & 0xFFFFu) * 0x10001u;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4, dst += 4) {
    const uint32_t v = dsp::LoadWord(src + i);
    const uint32_t a = __sxtab16(off2, v);
    const uint32_t b = dsp::Sxtab16Ror8(off2, v);
    dst[0] = Sadd16(a, a);
    dst[1] = Sadd16(b, b);
  }
  if (i < n) {
    dsp::Widen(src + i, n - i, offset, dst);
    dst[0] = Sadd16(dst[0], dst[0]);
    dst[1] = Sadd16(dst[1], dst[1]);
  }
}

// The int8 im2col patch of output pixel (b, oy, ox), taps outside the input = zero point.
// Runs of in-bounds taps along x are contiguous in NHWC when dilation_w == 1: copied as
// one span per kernel row.
void Patch(const s8_conv_params& p, const int8_t* in_b, int32_t oy, int32_t ox, int8_t zp,
           int8_t* dst) {
  const int32_t in_y0 = oy * p.stride_h - p.pad_top;
  const int32_t in_x0 = ox * p.stride_w - p.pad_left;
  const int32_t ic = p.in_c;
  const int32_t row = p.k_w * ic;
  // Taps [kx0, kx1) are inside along x.
  int32_t kx0 = 0, kx1 = p.k_w;
  if (p.dilation_w == 1) {
    kx0 = in_x0 < 0 ? -in_x0 : 0;
    if (kx0 > p.k_w) kx0 = p.k_w;
    kx1 = p.in_w - in_x0;
    if (kx1 > p.k_w) kx1 = p.k_w;
    if (kx1 < kx0) kx1 = kx0;
  }
  for (int32_t ky = 0; ky < p.k_h; ++ky, dst += row) {
    const int32_t iy = in_y0 + ky * p.dilation_h;
    if (iy < 0 || iy >= p.in_h) {
      for (int32_t i = 0; i < row; ++i) dst[i] = zp;
      continue;
    }
    const int8_t* src_row = in_b + iy * p.in_w * ic;
    if (p.dilation_w == 1) {
      for (int32_t i = 0; i < kx0 * ic; ++i) dst[i] = zp;
      const int8_t* s = src_row + (in_x0 + kx0) * ic;
      int8_t* d = dst + kx0 * ic;
      const int32_t n = (kx1 - kx0) * ic;
      int32_t i = 0;
      for (; i + 4 <= n; i += 4) {
        const uint32_t v = dsp::LoadWord(s + i);
        __builtin_memcpy(d + i, &v, 4);
      }
      for (; i < n; ++i) d[i] = s[i];
      for (int32_t j = kx1 * ic; j < row; ++j) dst[j] = zp;
    } else {
      int8_t* d = dst;
      for (int32_t kx = 0; kx < p.k_w; ++kx, d += ic) {
        const int32_t ix = in_x0 + kx * p.dilation_w;
        if (ix >= 0 && ix < p.in_w) {
          const int8_t* s = src_row + ix * ic;
          for (int32_t c = 0; c < ic; ++c) d[c] = s[c];
        } else {
          for (int32_t c = 0; c < ic; ++c) d[c] = zp;
        }
      }
    }
  }
}

template <bool kFull>
inline int8_t Clamp(int32_t v, int32_t lo, int32_t hi) {
  if constexpr (kFull) {
    return static_cast<int8_t>(__ssat(v, 8));
  } else {
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    return static_cast<int8_t>(v);
  }
}

template <bool kSingle, bool kFull>
inline int8_t Fast(int32_t x, int32_t m, int32_t c, uint32_t ei, int32_t lo, int32_t hi) {
  int32_t v;
  if constexpr (kSingle) {
    v = AsrReg(Smmla(x, m, c), ei);
  } else {
    v = AsrReg(Smmlar(x, m, c) + (x >> 31), ei);
  }
  return Clamp<kFull>(v, lo, hi);
}


// ---- The fast 2 x 2 block loop in assembly -------------------------------------------------
// GCC spills most of a C++ version (the dot product alone needs 14 registers). One routine
// per (rounding, clamp) runs a channel pair over n pixel pairs of a tile:
//   r1 = columns of the first pixel pair, r2 = the end of the tile's columns, r3 = the
//   pair's pre-widened K % 4 tail words or null, r0 = PairArgs (below).
// Per block: LDM of w0, w1, g, the 4 accumulator inits; the 18-instruction group loop
// (dsp::Dot2x2's); the tail group (LDM + 2 LDRD + 8 SMLAD); per channel one LDM of
// m, c, e, o, out_c, lo, hi and 4 or 5 instructions per output (header comment), 2 STRB.
struct ChanArgs {
  int32_t m, c;
  uint32_t e;     // e | index << 8 (ASR by register reads the bottom byte)
  int8_t* o;      // output of the channel at the current pixel pair's first pixel
  int32_t out_c, lo, hi;
};
struct PairArgs {
  const int8_t* w0;
  const int8_t* w1;
  int32_t g;
  int32_t init[4];  // a00, a01, a10, a11
  ChanArgs a, b;    // offsets 28, 56
  uint32_t tails[4];
};
static_assert(sizeof(ChanArgs) == 28 && sizeof(PairArgs) == 100, "asm offsets");

extern "C" {
void tf_conv_dsp_pairs_dbl_full(PairArgs* a, const uint32_t* c, const uint32_t* c_end,
                                const uint32_t* tails);
void tf_conv_dsp_pairs_dbl_clamp(PairArgs* a, const uint32_t* c, const uint32_t* c_end,
                                 const uint32_t* tails);
void tf_conv_dsp_pairs_sgl_full(PairArgs* a, const uint32_t* c, const uint32_t* c_end,
                                const uint32_t* tails);
void tf_conv_dsp_pairs_sgl_clamp(PairArgs* a, const uint32_t* c, const uint32_t* c_end,
                                 const uint32_t* tails);
}

__asm__(
    "  .syntax unified\n"
    "  .thumb\n"
    // acc = requantized acc (r2 = m, r3 = c, r4 = e, r12 = lo, lr = hi, r11 scratch)
    "  .macro TF_RQ_DBL acc\n"
    "  add r11, r3, \\acc, asr #31\n"
    "  smmlar \\acc, \\acc, r2, r11\n"
    "  asr \\acc, \\acc, r4\n"
    "  .endm\n"
    "  .macro TF_RQ_SGL acc\n"
    "  smmla \\acc, \\acc, r2, r3\n"
    "  asr \\acc, \\acc, r4\n"
    "  .endm\n"
    "  .macro TF_CL_FULL acc\n"
    "  ssat \\acc, #8, \\acc\n"
    "  .endm\n"
    "  .macro TF_CL_CLAMP acc\n"
    "  cmp \\acc, r12\n"
    "  it lt\n"
    "  movlt \\acc, r12\n"
    "  cmp \\acc, lr\n"
    "  it gt\n"
    "  movgt \\acc, lr\n"
    "  .endm\n"
    "  .macro TF_PAIRS name, rq, cl\n"
    "  .section .text.\\name,\"ax\",%progbits\n"
    "  .global \\name\n"
    "  .type \\name, %function\n"
    "  .thumb_func\n"
    "  .p2align 2\n"
    "\\name:\n"
    "  push {r4-r11, lr}\n"
    "  sub sp, sp, #20\n"
    "  str r0, [sp]\n"
    "  add r4, r0, #28\n"
    "  str r4, [sp, #4]\n"
    "  add r4, r0, #56\n"
    "  str r4, [sp, #8]\n"
    "  str r3, [sp, #12]\n"
    "  str r2, [sp, #16]\n"
    "1:\n"
    "  ldr r0, [sp]\n"
    "  ldm r0, {r2-r8}\n"
    "2:\n"
    "  ldr r9, [r2], #4\n"
    "  ldr r11, [r3], #4\n"
    "  sxtb16 r10, r9, ror #8\n"
    "  sxtb16 r9, r9\n"
    "  sxtb16 r12, r11, ror #8\n"
    "  sxtb16 r11, r11\n"
    "  ldrd lr, r0, [r1], #16\n"
    "  smlad r5, lr, r9, r5\n"
    "  smlad r5, r0, r10, r5\n"
    "  smlad r6, lr, r11, r6\n"
    "  smlad r6, r0, r12, r6\n"
    "  ldrd lr, r0, [r1, #-8]\n"
    "  smlad r7, lr, r9, r7\n"
    "  smlad r7, r0, r10, r7\n"
    "  smlad r8, lr, r11, r8\n"
    "  smlad r8, r0, r12, r8\n"
    "  subs r4, r4, #1\n"
    "  bne 2b\n"
    "  ldr r0, [sp, #12]\n"
    "  cbz r0, 3f\n"
    "  ldm r0, {r9-r12}\n"
    "  ldrd lr, r0, [r1], #16\n"
    "  smlad r5, lr, r9, r5\n"
    "  smlad r5, r0, r10, r5\n"
    "  smlad r6, lr, r11, r6\n"
    "  smlad r6, r0, r12, r6\n"
    "  ldrd lr, r0, [r1, #-8]\n"
    "  smlad r7, lr, r9, r7\n"
    "  smlad r7, r0, r10, r7\n"
    "  smlad r8, lr, r11, r8\n"
    "  smlad r8, r0, r12, r8\n"
    "3:\n"
    "  ldr r0, [sp, #4]\n"
    "  ldm r0, {r2, r3, r4, r9, r10, r12, lr}\n"
    "  \\rq r5\n"
    "  \\cl r5\n"
    "  strb r5, [r9]\n"
    "  \\rq r7\n"
    "  \\cl r7\n"
    "  strb r7, [r9, r10]\n"
    "  add r9, r9, r10, lsl #1\n"
    "  str r9, [r0, #12]\n"
    "  ldr r0, [sp, #8]\n"
    "  ldm r0, {r2, r3, r4, r9, r10, r12, lr}\n"
    "  \\rq r6\n"
    "  \\cl r6\n"
    "  strb r6, [r9]\n"
    "  \\rq r8\n"
    "  \\cl r8\n"
    "  strb r8, [r9, r10]\n"
    "  add r9, r9, r10, lsl #1\n"
    "  str r9, [r0, #12]\n"
    "  ldr r0, [sp, #16]\n"
    "  cmp r1, r0\n"
    "  bne 1b\n"
    "  add sp, sp, #20\n"
    "  pop {r4-r11, pc}\n"
    "  .size \\name, . - \\name\n"
    "  .endm\n"
    "  TF_PAIRS tf_conv_dsp_pairs_dbl_full, TF_RQ_DBL, TF_CL_FULL\n"
    "  TF_PAIRS tf_conv_dsp_pairs_dbl_clamp, TF_RQ_DBL, TF_CL_CLAMP\n"
    "  TF_PAIRS tf_conv_dsp_pairs_sgl_full, TF_RQ_SGL, TF_CL_FULL\n"
    "  TF_PAIRS tf_conv_dsp_pairs_sgl_clamp, TF_RQ_SGL, TF_CL_CLAMP\n"
    "  .text\n");

template <bool kSingle, bool kFull>
inline void PairsAsm(PairArgs* a, const uint32_t* c, const uint32_t* c_end,
                     const uint32_t* tails) {
  if constexpr (kSingle) {
    if constexpr (kFull) {
      tf_conv_dsp_pairs_sgl_full(a, c, c_end, tails);
    } else {
      tf_conv_dsp_pairs_sgl_clamp(a, c, c_end, tails);
    }
  } else {
    if constexpr (kFull) {
      tf_conv_dsp_pairs_dbl_full(a, c, c_end, tails);
    } else {
      tf_conv_dsp_pairs_dbl_clamp(a, c, c_end, tails);
    }
  }
}

// The pieces of a call the loops share.
struct Ctx {
  const int8_t* weights;
  const int32_t* bias;
  const int32_t* mult;
  const int32_t* shift;
  int32_t k, g, r;  // K, K / 4, K % 4
  int32_t out_c;
  int32_t output_offset, lo, hi, rounding;
};

// Fast channels tab[0, nf): pairs (the last one paired with itself) x pixel pairs.
template <bool kSingle, bool kFull>
void FastTile(const Ctx& x, const Chan* tab, const uint32_t* tails, int32_t nf,
              const uint32_t* ext, int32_t pair_words, int32_t np, int8_t* out) {
  const int32_t k = x.k, g = x.g, out_c = x.out_c;
  const int32_t lo = x.lo, hi = x.hi;
  const bool tail = x.r != 0;
  for (int32_t i = 0; i < nf; i += 2) {
    const int32_t i1 = i + 1 < nf ? i + 1 : i;
    const Chan a = tab[i];
    const Chan b = tab[i1];
    const int32_t ia = static_cast<int32_t>(a.ei >> 8), ib = static_cast<int32_t>(b.ei >> 8);
    const int8_t* w0 = x.weights + ia * k;
    const int8_t* w1 = x.weights + ib * k;
    const uint32_t* c = ext;
    int8_t* oa = out + ia;
    int8_t* ob = out + ib;
    int32_t j = np;
    if (g > 0 && np >= 2) {
      PairArgs pa;
      pa.w0 = w0;
      pa.w1 = w1;
      pa.g = g;
      pa.init[0] = a.init;
      pa.init[1] = b.init;
      pa.init[2] = a.init;
      pa.init[3] = b.init;
      pa.a = ChanArgs{a.m, a.c, a.ei, oa, out_c, lo, hi};
      pa.b = ChanArgs{b.m, b.c, b.ei, ob, out_c, lo, hi};
      if (tail) {
        pa.tails[0] = tails[2 * i];
        pa.tails[1] = tails[2 * i + 1];
        pa.tails[2] = tails[2 * i1];
        pa.tails[3] = tails[2 * i1 + 1];
      }
      const int32_t pairs = np >> 1;
      PairsAsm<kSingle, kFull>(&pa, c, c + pairs * pair_words, tail ? pa.tails : nullptr);
      j -= 2 * pairs;
      c += pairs * pair_words;
      oa += 2 * pairs * out_c;
      ob += 2 * pairs * out_c;
    }
    for (; j >= 2; j -= 2, c += pair_words, oa += 2 * out_c, ob += 2 * out_c) {
      int32_t a00 = a.init, a01 = b.init, a10 = a.init, a11 = b.init;
      if (g > 0) dsp::Dot2x2(c, w0, w1, g, a00, a01, a10, a11);
      if (tail) {
        const uint32_t* t = c + 4 * g;
        const uint32_t* ta = tails + 2 * i;
        const uint32_t* tb = tails + 2 * i1;
        a00 = __smlad(t[0], ta[0], a00);
        a00 = __smlad(t[1], ta[1], a00);
        a01 = __smlad(t[0], tb[0], a01);
        a01 = __smlad(t[1], tb[1], a01);
        a10 = __smlad(t[2], ta[0], a10);
        a10 = __smlad(t[3], ta[1], a10);
        a11 = __smlad(t[2], tb[0], a11);
        a11 = __smlad(t[3], tb[1], a11);
      }
      oa[0] = Fast<kSingle, kFull>(a00, a.m, a.c, a.ei, lo, hi);
      ob[0] = Fast<kSingle, kFull>(a01, b.m, b.c, b.ei, lo, hi);
      oa[out_c] = Fast<kSingle, kFull>(a10, a.m, a.c, a.ei, lo, hi);
      ob[out_c] = Fast<kSingle, kFull>(a11, b.m, b.c, b.ei, lo, hi);
    }
    if (j != 0) {
      int32_t a0 = a.init, a1 = b.init;
      if (g > 0) dsp::Dot1x2(c, w0, w1, g, a0, a1);
      if (tail) {
        const uint32_t* t = c + 4 * g;
        const uint32_t* ta = tails + 2 * i;
        const uint32_t* tb = tails + 2 * i1;
        a0 = __smlad(t[0], ta[0], a0);
        a0 = __smlad(t[1], ta[1], a0);
        a1 = __smlad(t[0], tb[0], a1);
        a1 = __smlad(t[1], tb[1], a1);
      }
      oa[0] = Fast<kSingle, kFull>(a0, a.m, a.c, a.ei, lo, hi);
      ob[0] = Fast<kSingle, kFull>(a1, b.m, b.c, b.ei, lo, hi);
    }
  }
}

// acc (bias + dot) from X = 2 * dot (the slow channels' accumulators start at 0), then the
// generic requantization.
inline int8_t Slow(const Ctx& x, int32_t idx, int32_t acc2) {
  const int32_t b = x.bias != nullptr ? x.bias[idx] : 0;
  const int32_t acc = fx::WrapAdd(acc2 >> 1, b);
  const int32_t v = fx::Requantize(acc, x.mult[idx], x.shift[idx], x.rounding) + x.output_offset;
  return static_cast<int8_t>(fx::Clamp(v, x.lo, x.hi));
}

// Slow channels tab[0, ns), one at a time (rare).
void SlowTile(const Ctx& x, const Chan* tab, const uint32_t* tails, int32_t ns,
              const uint32_t* ext, int32_t pair_words, int32_t np, int8_t* out) {
  for (int32_t i = 0; i < ns; ++i) {
    const int32_t idx = static_cast<int32_t>(tab[i].ei >> 8);
    const int8_t* w = x.weights + idx * x.k;
    for (int32_t j = 0; j < np; ++j) {
      const uint32_t* c = ext + (j >> 1) * pair_words + 2 * (j & 1);
      int32_t acc = 0, dummy = 0;
      if (x.g > 0) dsp::Dot1x2(c, w, w, x.g, acc, dummy);
      if (x.r != 0) {
        const uint32_t* t = c + 4 * x.g;
        acc = __smlad(t[0], tails[2 * i], acc);
        acc = __smlad(t[1], tails[2 * i + 1], acc);
      }
      out[j * x.out_c + idx] = Slow(x, idx, acc);
    }
  }
}

// The K % 4 = r last weights of a row, widened as a column's tail group: [w0, w2], [w1, 0].
inline void TailWords(const int8_t* w, int32_t r, uint32_t* dst) {
  const uint32_t w0 = static_cast<uint16_t>(static_cast<int16_t>(w[0]));
  const uint32_t w1 = r > 1 ? static_cast<uint16_t>(static_cast<int16_t>(w[1])) : 0u;
  const uint32_t w2 = r > 2 ? static_cast<uint16_t>(static_cast<int16_t>(w[2])) : 0u;
  dst[0] = w0 | (w2 << 16);
  dst[1] = w1;
}

inline bool AllZero(const int8_t* w, int32_t k) {
  int32_t i = 0;
  for (; i + 4 <= k; i += 4) {
    if (dsp::LoadWord(w + i) != 0) return false;
  }
  for (; i < k; ++i) {
    if (w[i] != 0) return false;
  }
  return true;
}

struct Table {
  int32_t nf, ns, nd;  // fast, slow, dead channel counts
  Chan* fast;          // [nf]
  Chan* slow;          // [ns]
  uint32_t* fast_tails;
  uint32_t* slow_tails;
};

// Classifies the channels (see the header). tab: out_c entries; tails: 2 * out_c words (if
// r != 0); tmpl: out_c bytes.
Table BuildTable(const s8_conv_params& p, const Ctx& x, Chan* tab, uint32_t* tails,
                 int8_t* tmpl) {
  Table t{};
  const int32_t n = p.out_c;
  // |dot| <= K * 255 * 128 (widened inputs in [-255, 255], weights in [-128, 127]).
  const int64_t bias_limit = (int64_t{1} << 30) - int64_t{x.k} * 32640;
  int32_t nf = 0, ns = 0;
  for (int32_t oc = 0; oc < n; ++oc) {
    const int8_t* w = x.weights + oc * x.k;
    const int32_t b = x.bias != nullptr ? x.bias[oc] : 0;
    const int32_t m = x.mult[oc];
    const int32_t s = x.shift[oc];
    if (AllZero(w, x.k)) {
      const int32_t v = fx::Requantize(b, m, s, p.rounding) + p.output_offset;
      tmpl[oc] = static_cast<int8_t>(fx::Clamp(v, p.act_min, p.act_max));
      ++t.nd;
      continue;
    }
    tmpl[oc] = 0;
    const int64_t ab = b < 0 ? -int64_t{b} : int64_t{b};
    const bool fast = m == 0 || (s <= -1 && s >= -22 && ab < bias_limit);
    Chan e;
    int32_t slot;
    if (fast) {
      const int32_t ee = m == 0 ? 1 : -s;
      e.init = m == 0 ? 0 : 2 * b;
      e.m = m;
      e.c = static_cast<int32_t>(static_cast<uint32_t>(p.output_offset) << ee) +
            (int32_t{1} << (ee - 1));
      e.ei = static_cast<uint32_t>(ee) | (static_cast<uint32_t>(oc) << 8);
      slot = nf++;
    } else {
      e.init = 0;
      e.m = m;
      e.c = 0;
      e.ei = static_cast<uint32_t>(oc) << 8;
      slot = n - 1 - ns++;
    }
    tab[slot] = e;
    if (x.r != 0) TailWords(w + 4 * x.g, x.r, tails + 2 * slot);
  }
  t.nf = nf;
  t.ns = ns;
  t.fast = tab;
  t.slow = tab + (n - ns);
  t.fast_tails = tails;
  t.slow_tails = tails + 2 * (n - ns);
  // Slow entries were filled from the end: reversed order, which does not matter.
  return t;
}

// Copies the template pixel (dead channels' constants) to np output pixels.
void FillTemplate(const int8_t* tmpl, int32_t out_c, int32_t np, int8_t* out) {
  const bool words = ((reinterpret_cast<uintptr_t>(out) | static_cast<uintptr_t>(out_c)) & 3u) == 0;
  for (int32_t j = 0; j < np; ++j, out += out_c) {
    int32_t i = 0;
    if (words) {
      const uint32_t* s = reinterpret_cast<const uint32_t*>(tmpl);
      uint32_t* d = reinterpret_cast<uint32_t*>(out);
      for (; i + 8 <= out_c; i += 8, s += 2, d += 2) {
        const uint32_t v0 = s[0], v1 = s[1];
        d[0] = v0;
        d[1] = v1;
      }
      for (; i < out_c; i += 4) *d++ = *s++;
    } else {
      for (; i < out_c; ++i) out[i] = tmpl[i];
    }
  }
}

template <bool kSingle, bool kFull>
void Run(const s8_conv_params& p, const Ctx& x, const Table& t, const int8_t* input,
         int8_t* output, uint32_t* ext, int8_t* patch, const int8_t* tmpl) {
  const int32_t k = x.k;
  const bool direct = s8_conv_is_direct(p);
  const int8_t zp = static_cast<int8_t>(-p.input_offset);
  const int32_t plane = p.out_h * p.out_w;
  const int32_t total = p.batches * plane;
  const int32_t pair_words = 4 * ((k + 3) >> 2);
  const int32_t tile = 2 * s8_conv_dsp_pairs(p);
  int32_t b = 0, oy = 0, ox = 0;  // the next pixel to widen
  for (int32_t n = 0; n < total; n += tile) {
    const int32_t np = total - n < tile ? total - n : tile;
    int8_t* out = output + n * p.out_c;
    if (t.nf + t.ns != 0) {
      for (int32_t j = 0; j < np; ++j) {
        const int8_t* in_b = input + b * p.in_h * p.in_w * p.in_c;
        const int8_t* src;
        if (direct) {
          src = in_b + ((oy * p.stride_h) * p.in_w + ox * p.stride_w) * p.in_c;
        } else {
          Patch(p, in_b, oy, ox, zp, patch);
          src = patch;
        }
        Widen2(src, k, p.input_offset, ext + (j >> 1) * pair_words + 2 * (j & 1));
        if (++ox == p.out_w) {
          ox = 0;
          if (++oy == p.out_h) {
            oy = 0;
            ++b;
          }
        }
      }
    }
    if (t.nd != 0) FillTemplate(tmpl, p.out_c, np, out);
    if (t.nf != 0) FastTile<kSingle, kFull>(x, t.fast, t.fast_tails, t.nf, ext, pair_words, np, out);
    if (t.ns != 0) SlowTile(x, t.slow, t.slow_tails, t.ns, ext, pair_words, np, out);
  }
}

}  // namespace

extern "C" void s8_conv__dsp(const s8_conv_params* params, const int8_t* input,
                             const int8_t* weights, const int32_t* bias, int8_t* output,
                             void* scratch) {
  const s8_conv_params& p = *params;
  const int32_t k = p.k_h * p.k_w * p.in_c;
  if (p.filter_in_c != p.in_c || k > 32000) {  // grouped convolution, or 2 * dot could overflow
    s8_conv__ref(params, input, weights, bias, output, nullptr);
    return;
  }
  const int32_t words = s8_conv_dsp_pairs(p) * 4 * ((k + 3) >> 2);  // widened column pairs
  const uintptr_t base = (reinterpret_cast<uintptr_t>(scratch) + 7u) & ~uintptr_t{7};
  uint32_t* ext = reinterpret_cast<uint32_t*>(base);
  Chan* tab = reinterpret_cast<Chan*>(ext + words);
  uint32_t* tails = reinterpret_cast<uint32_t*>(tab + p.out_c);
  int8_t* tmpl = reinterpret_cast<int8_t*>(tails + ((k & 3) != 0 ? 2 * p.out_c : 0));
  int8_t* patch = tmpl + ((p.out_c + 3) & ~3);
  Ctx x{weights,  bias,     p.multiplier, p.shift,        k,      k >> 2,   k & 3,
        p.out_c,  p.output_offset, p.act_min, p.act_max, p.rounding};
  const Table t = BuildTable(p, x, tab, tails, tmpl);
  const bool full = p.act_min == -128 && p.act_max == 127;
  if (p.rounding == TF_ROUNDING_SINGLE) {
    if (full) {
      Run<true, true>(p, x, t, input, output, ext, patch, tmpl);
    } else {
      Run<true, false>(p, x, t, input, output, ext, patch, tmpl);
    }
  } else {
    if (full) {
      Run<false, true>(p, x, t, input, output, ext, patch, tmpl);
    } else {
      Run<false, false>(p, x, t, input, output, ext, patch, tmpl);
    }
  }
}

#endif  // __ARM_FEATURE_DSP
