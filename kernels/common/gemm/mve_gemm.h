// Helium (MVE) int8 GEMM core shared by s8_conv__mve and s8_fc__mve (internal header, only
// included inside `#if TF_HAVE_MVE`, kernels/common/isa.h).
//
// out[p][c] = requant(bias[c] + sum_k col_p[k] * w_c[k]) for "columns" col_p (a pixel's
// input channels, an im2col patch, or an FC input row) of K int8 values and weight rows w_c
// (OHWI / [out, in]: each output channel's K weights are contiguous).
//
// Register blocking: VMLADAVA accumulates into an even-numbered core register, which leaves
// room for about 6 accumulators; 4 (2 columns x 2 channels, or 1 column x 4 channels for a
// single FC row) give one int32x4 vector that is requantized in one go and stored with a
// single narrowing (scatter) store. Each loaded 16-byte vector feeds 2 (or 4) VMLADAVAs.
// The dot-product loops are inline assembly: a tail-predicated low-overhead loop (DLSTP/LETP,
// so K needs no multiple of 16 and no scalar tail), post-incremented loads; GCC 12 spilled
// and re-added pointers around the intrinsic version.
//
// Requantization, 4 lanes at once, bit-exact with fx::Requantize:
//   double (TFLM): x <<= max(s,0) (wrapping, like TFLite); h = VQRDMULH(x, m) (= gemmlowp's
//     SRDHM); then RoundingDivideByPOT(h, -min(s,0)) = VRSHL(h + (h < 0 ? -1 : 0), min(s,0)),
//     the -1 fix-up turning VRSHL's ties-up into ties-away. With every shift <= -1 the fix-up
//     is just h >> 31 (|h| < 2^31 since m < 2^31, so the add cannot overflow); otherwise it is
//     masked by the shift's sign bit (zero where there is no right shift) and saturating.
//   single, every shift <= -1: floor((x*m + 2^(30-s)) / 2^(31-s)) = VRSHL(VQDMULH(x, m), s):
//     VQDMULH gives q = floor(x*m / 2^31) exactly (m >= 0, no saturation), and since
//     2^(30-s) = 2^(-s-1) * 2^31 is a multiple of 2^31, dropping x*m's low 31 bits does not
//     change floor((q*2^31 + f + 2^(-s-1)*2^31) / 2^(-s) / 2^31); VRSHL by s < 0 then rounds
//     q half up.  Any shift >= 0 under single rounding (a scale >= 0.5, rare) goes through the
//     scalar fx::Requantize per element instead.
#ifndef TINYFORGE_KERNELS_COMMON_GEMM_MVE_GEMM_H_
#define TINYFORGE_KERNELS_COMMON_GEMM_MVE_GEMM_H_

#include <arm_mve.h>

#include <cstdint>

#include "kernels/common/fixed_point.h"
#include "kernels/common/rq_mode.h"

namespace tinyforge::mve {

// The requantization cases (kernels/common/rq_mode.h).
using rq::ChooseMode;
using rq::RqMode;
using rq::kRqDouble;
using rq::kRqDoubleNeg;
using rq::kRqDoubleNonPos;
using rq::kRqPerElement;
using rq::kRqSingle;
using rq::kRqSingleNeg;

template <int kMode>
inline int32x4_t Requantize(int32x4_t acc, int32x4_t m, int32x4_t s) {
  if constexpr (kMode == kRqSingleNeg) {
    return vrshlq_s32(vqdmulhq_s32(acc, m), s);
  } else if constexpr (kMode == kRqDoubleNeg) {
    const int32x4_t h = vqrdmulhq_s32(acc, m);
    return vrshlq_s32(vaddq_s32(h, vshrq_n_s32(h, 31)), s);
  } else {
    int32x4_t right = s;
    if constexpr (kMode == kRqDouble) {
      const int32x4_t zero = vdupq_n_s32(0);
      acc = vshlq_s32(acc, vmaxq_s32(s, zero));
      right = vminq_s32(s, zero);
    }
    int32x4_t h = vqrdmulhq_s32(acc, m);
    const int32x4_t fixup = vshrq_n_s32(vandq_s32(h, right), 31);
    h = vqaddq_s32(h, fixup);
    return vrshlq_s32(h, right);
  }
}

inline uint32x4_t Lanes4u(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  uint32x4_t v = vdupq_n_u32(a);
  v = vsetq_lane_u32(b, v, 1);
  v = vsetq_lane_u32(c, v, 2);
  v = vsetq_lane_u32(d, v, 3);
  return v;
}

// {a, b, c, d} through memory: two STRDs and one VLDRW (fewer instructions than 4 VMOVs).
inline int32x4_t Lanes(int32_t a, int32_t b, int32_t c, int32_t d) {
  alignas(16) int32_t t[4];
  t[0] = a;
  t[1] = b;
  t[2] = c;
  t[3] = d;
  return vld1q_s32(t);
}

// A 32-bit-lane predicate from per-lane flags. Built with a vector compare at run time:
// GCC 12 mis-converts constant mve_pred16_t values for 32-bit lanes (e.g. 0x0F0F stores all 4
// lanes), so predicates never come from integer constants here.
inline mve_pred16_t LanePred(uint32_t l0, uint32_t l1, uint32_t l2, uint32_t l3) {
  uint32x4_t v = Lanes4u(l0, l1, l2, l3);
  __asm__("" : "+w"(v));
  return vcmpneq_n_u32(v, 0);
}

// Lane predicates of a 2 x 2 block {p0c0, p0c1, p1c0, p1c1}.
struct Preds {
  mve_pred16_t first_px, first_c, first_both;
};
inline Preds MakePreds() {
  return {LanePred(1, 1, 0, 0), LanePred(1, 0, 1, 0), LanePred(1, 0, 0, 0)};
}

// 2 columns x 2 weight rows, k >= 1: {c0.w0, c0.w1, c1.w0, c1.w1} + {b0, b1, b0, b1}.
inline int32x4_t Dot2x2(const int8_t* c0, const int8_t* c1, const int8_t* w0, const int8_t* w1,
                        int32_t k, int32_t b0, int32_t b1) {
  int32_t a00 = b0, a01 = b1, a10 = b0, a11 = b1;
  __asm__ volatile(
      "dlstp.8 lr, %[k]\n"
      "1:\n\t"
      "vldrb.8 q0, [%[c0]], #16\n\t"
      "vldrb.8 q1, [%[w0]], #16\n\t"
      "vmladava.s8 %[a00], q0, q1\n\t"
      "vldrb.8 q2, [%[w1]], #16\n\t"
      "vmladava.s8 %[a01], q0, q2\n\t"
      "vldrb.8 q0, [%[c1]], #16\n\t"
      "vmladava.s8 %[a10], q0, q1\n\t"
      "vmladava.s8 %[a11], q0, q2\n\t"
      "letp lr, 1b\n"
      : [a00] "+Te"(a00), [a01] "+Te"(a01), [a10] "+Te"(a10), [a11] "+Te"(a11),
        [c0] "+r"(c0), [c1] "+r"(c1), [w0] "+r"(w0), [w1] "+r"(w1)
      : [k] "r"(k)
      : "q0", "q1", "q2", "lr", "memory");
  return Lanes(a00, a01, a10, a11);
}

// 1 column x 4 weight rows, k >= 1: {c.w0, c.w1, c.w2, c.w3} + {b0, b1, b2, b3}.
inline int32x4_t Dot1x4(const int8_t* c, const int8_t* w0, const int8_t* w1, const int8_t* w2,
                        const int8_t* w3, int32_t k, int32_t b0, int32_t b1, int32_t b2,
                        int32_t b3) {
  int32_t a0 = b0, a1 = b1, a2 = b2, a3 = b3;
  __asm__ volatile(
      "dlstp.8 lr, %[k]\n"
      "1:\n\t"
      "vldrb.8 q0, [%[c]], #16\n\t"
      "vldrb.8 q1, [%[w0]], #16\n\t"
      "vmladava.s8 %[a0], q0, q1\n\t"
      "vldrb.8 q2, [%[w1]], #16\n\t"
      "vmladava.s8 %[a1], q0, q2\n\t"
      "vldrb.8 q1, [%[w2]], #16\n\t"
      "vmladava.s8 %[a2], q0, q1\n\t"
      "vldrb.8 q2, [%[w3]], #16\n\t"
      "vmladava.s8 %[a3], q0, q2\n\t"
      "letp lr, 1b\n"
      : [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [c] "+r"(c),
        [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3)
      : [k] "r"(k)
      : "q0", "q1", "q2", "lr", "memory");
  return Lanes(a0, a1, a2, a3);
}

// Requantizes, offsets, clamps and stores the low bytes of 4 accumulators at out + o_off.
template <int kMode>
struct Out4 {
  int32x4_t m = vdupq_n_s32(0), s = vdupq_n_s32(0);  // per-lane multiplier, shift
  const int32_t* mult;  // kRqPerElement: lane l uses mult[q[l]], shift[q[l]]
  const int32_t* shift;
  int32_t q[4];
  int32_t output_offset, act_min, act_max;
  int32_t rounding = TF_ROUNDING_SINGLE;  // kRqPerElement

  inline int32x4_t Value(int32x4_t acc) const {
    int32x4_t v = Requantize<kMode>(acc, m, s);
    v = vaddq_n_s32(v, output_offset);
    v = vmaxq_s32(v, vdupq_n_s32(act_min));
    return vminq_s32(v, vdupq_n_s32(act_max));
  }
  inline void Scalar(int32x4_t acc, int8_t* out, uint32x4_t o_off, uint32_t lanes) const {
    alignas(16) int32_t a[4];
    alignas(16) uint32_t o[4];
    vst1q_s32(a, acc);
    vst1q_u32(o, o_off);
    for (int l = 0; l < 4; ++l) {
      if (((lanes >> l) & 1u) == 0) continue;
      int32_t v = fx::Requantize(a[l], mult[q[l]], shift[q[l]], rounding);
      v = fx::WrapAdd(v, output_offset);
      out[o[l]] = static_cast<int8_t>(fx::Clamp(v, act_min, act_max));
    }
  }
  inline void Store(int32x4_t acc, int8_t* out, uint32x4_t o_off) const {
    if constexpr (kMode == kRqPerElement) {
      Scalar(acc, out, o_off, 0xF);
    } else {
      vstrbq_scatter_offset_s32(out, o_off, Value(acc));
    }
  }
  // lanes: bit l set = store lane l; pred: the same as an MVE predicate.
  inline void StoreP(int32x4_t acc, int8_t* out, uint32x4_t o_off, uint32_t lanes,
                     mve_pred16_t pred) const {
    if constexpr (kMode == kRqPerElement) {
      Scalar(acc, out, o_off, lanes);
    } else {
      vstrbq_scatter_offset_p_s32(out, o_off, Value(acc), pred);
    }
  }
};

// Small K (<= 64), kRqDoubleNeg / kRqSingleNeg: "input stationary" rows. One column (a pixel's
// K <= 64 inputs) stays in q4..q7 while every output channel's weights stream past once, 4
// channels per block: per block 4 * C weight loads + 4 * C VMLADAVAs (C = ceil(K / 16)), two
// LDRDs of bias, two VLDRWs of multiplier/shift from a per-call packed table, one
// requantization and one 4-byte store. Assembly (mve_smallk.inc, one function per mode, C and
// K % 16 != 0): GCC 12 spills the column registers of the intrinsic version. Tail chunks are
// predicated loads (zeros past K for the column; no weight byte past a row is read).
struct alignas(16) SmallKArgs {
  const int8_t* const* c;  // #0: the next column's pointer (advanced by the loop)
  int32_t tn;              // #4: bytes in the last chunk (1..16)
  int32_t n;               // #8: channel quads
  int32_t mn;              // #12: act_min
  int32_t t[4];            // #16: accumulator transfer
  int32_t mnv[4];          // #32: act_min in every lane (the K = 24 / 40 rows)
  int32_t np;              // #48: columns to run (>= 1; counted down)
  const int8_t* w0;        // #52: weights of channel 0
  const int32_t* pk0;      // #56: packed table of quad 0
  int32_t pad;
};

// Arguments of the TileRows_* assembly loops (2 columns x 2 channels, pixel pairs).
struct alignas(16) TileArgs {
  int32_t b0, b1;         // #0: the channel pair's bias
  int32_t k;              // #8
  int32_t off;            // #12: output offset
  const int8_t* w0;       // #16
  const int8_t* w1;       // #20
  int32_t step;           // #24: bytes between pixel pairs in the output (2 * n_out)
  int32_t pad;
  int32_t t[4];           // #32: accumulator transfer
};

// Arguments of the SmallK4_* assembly loops (K <= 16: 4 columns x 1 channel per iteration).
struct alignas(16) SmallK4Args {
  int32_t t[4];           // #0: accumulator transfer
  uint32_t o_off[4];      // #16: {0, n_out, 2 n_out, 3 n_out}
  int32_t act_min[4];     // #32
  const int8_t* cols[4];  // #48
  int32_t tn;             // #64: k (bytes of the one chunk)
  int32_t n;              // #68: channels
};

#include "kernels/common/gemm/mve_smallk.inc"

// Runs the assembly row kernel for (mode, C = ceil(k / 16), k % 16 != 0), or (sel 10 / 11) the
// K = 24 / 40 channel-pair rows. A switch rather
// than a function pointer: the kernels library is built -fPIC, and a pointer to an inline
// function loaded through the GOT came out null in firmware.
template <int kMode>
inline void SmallKRow(int32_t sel, SmallKArgs* s, const int8_t*& w, const int32_t*& pk,
                      int8_t*& o, int32_t k, int32_t off, int32_t mx) {
#define TFM_SWITCH(M)                                               \
  switch (sel) {                                                    \
    case 2: SmallKRow_##M##_1(s, w, pk, o, k, off, mx); break;      \
    case 3: SmallKRow_##M##_1_t(s, w, pk, o, k, off, mx); break;    \
    case 4: SmallKRow_##M##_2(s, w, pk, o, k, off, mx); break;      \
    case 5: SmallKRow_##M##_2_t(s, w, pk, o, k, off, mx); break;    \
    case 6: SmallKRow_##M##_3(s, w, pk, o, k, off, mx); break;      \
    case 7: SmallKRow_##M##_3_t(s, w, pk, o, k, off, mx); break;    \
    case 8: SmallKRow_##M##_4(s, w, pk, o, k, off, mx); break;      \
    case 9: SmallKRow_##M##_4_t(s, w, pk, o, k, off, mx); break;    \
    case 10: SmallKRow_##M##_k24(s, w, pk, o, off, mx); break;      \
    default: SmallKRow_##M##_k40(s, w, pk, o, off, mx); break;      \
  }
  if constexpr (kMode == kRqSingleNeg) {
    TFM_SWITCH(Single)
  } else {
    TFM_SWITCH(DoubleNeg)
  }
#undef TFM_SWITCH
}

// Per channel: bias, multiplier, shift (the SmallK4 loops' table; n channels).
inline void PackChannels(const int32_t* bias, const int32_t* mult, const int32_t* shift,
                         int32_t n, int32_t* dst) {
  for (int32_t c = 0; c < n; ++c, dst += 3) {
    dst[0] = bias[c];
    dst[1] = mult[c];
    dst[2] = shift[c];
  }
}

// K <= 16, 4 columns at a time (np >= 4 handled here, returns the number of columns done).
template <int kMode>
inline int32_t SmallK4Rows(const int8_t* const* cols, int32_t np, const int8_t* weights,
                           int32_t k, const int32_t* packed, int32_t n_out, int32_t output_offset,
                           int32_t act_min, int32_t act_max, int8_t* out) {
  SmallK4Args a;
  const uint32_t no = static_cast<uint32_t>(n_out);
  a.o_off[0] = 0;
  a.o_off[1] = no;
  a.o_off[2] = 2 * no;
  a.o_off[3] = 3 * no;
  for (int i = 0; i < 4; ++i) a.act_min[i] = act_min;
  a.tn = k;
  a.n = n_out;
  int32_t i = 0;
  for (; i + 4 <= np; i += 4) {
    for (int j = 0; j < 4; ++j) a.cols[j] = cols[i + j];
    int8_t* o = out + i * n_out;
    if constexpr (kMode == kRqSingleNeg) {
      if (k == 16) {
        SmallK4_Single(&a, weights, packed, o, output_offset, act_max);
      } else {
        SmallK4_Single_t(&a, weights, packed, o, output_offset, act_max);
      }
    } else {
      if (k == 16) {
        SmallK4_DoubleNeg(&a, weights, packed, o, output_offset, act_max);
      } else {
        SmallK4_DoubleNeg_t(&a, weights, packed, o, output_offset, act_max);
      }
    }
  }
  return i;
}

// Per channel quad: bias[4], multiplier[4], shift[4] (int32), n_out / 4 quads.
inline void PackQuads(const int32_t* bias, const int32_t* mult, const int32_t* shift,
                      int32_t q_step, int32_t n_quads, int32_t* dst) {
  const uint32x4_t lane = vmulq_n_u32(Lanes4u(0, 1, 2, 3), static_cast<uint32_t>(q_step));
  for (int32_t q = 0; q < n_quads; ++q, dst += 12) {
    const uint32x4_t qo = vaddq_n_u32(lane, static_cast<uint32_t>(4 * q * q_step));
    vst1q_s32(dst, vld1q_s32(bias + 4 * q));
    vst1q_s32(dst + 4, vldrwq_gather_shifted_offset_s32(mult, qo));
    vst1q_s32(dst + 8, vldrwq_gather_shifted_offset_s32(shift, qo));
  }
}

// np columns -> out[i * n_out + c] for all channels; packed = PackQuads(..., n_out / 4).
template <int kMode>
inline void SmallKRows(const int8_t* const* cols, int32_t np, const int8_t* weights, int32_t k,
                       const int32_t* bias, const int32_t* mult, const int32_t* shift,
                       int32_t q_step, const int32_t* packed, int32_t n_out,
                       int32_t output_offset, int32_t act_min, int32_t act_max, int8_t* out) {
  const int32_t n_quads = n_out >> 2;
  // K = 24 / 40: the whole-chunk channel-pair rows (sel 10 / 11).
  const int32_t sel = k == 24   ? 10
                      : k == 40 ? 11
                                : ((k + 15) >> 4) * 2 + ((k & 15) != 0 ? 1 : 0);
  SmallKArgs a;
  a.tn = k - 16 * ((k - 1) >> 4);
  a.n = n_quads;
  a.mn = act_min;
  for (int l = 0; l < 4; ++l) a.mnv[l] = act_min;
  a.w0 = weights;
  a.pk0 = packed;
  if (n_quads > 0 && (n_out & 3) == 0) {  // every column in one call, outputs contiguous
    a.c = cols;
    a.np = np;
    const int8_t* w = weights;
    const int32_t* pk = packed;
    int8_t* o = out;
    SmallKRow<kMode>(sel, &a, w, pk, o, k, output_offset, act_max);
    return;
  }
  for (int32_t i = 0; i < np; ++i) {
    a.c = cols + i;
    a.np = 1;
    const int8_t* w = weights;
    const int32_t* pk = packed;
    int8_t* o = out + i * n_out;
    if (n_quads > 0) SmallKRow<kMode>(sel, &a, w, pk, o, k, output_offset, act_max);
    // Remaining 1..3 channels: plain dot products, scalar requantization.
    for (int32_t oc = 4 * n_quads; oc < n_out; ++oc, w += k) {
      int32_t acc = bias[oc];
      const int8_t* c = cols[i];
      for (int32_t j = 0; j < k; ++j) acc += static_cast<int32_t>(c[j]) * w[j];
      const int32_t q = oc * q_step;
      const int32_t r = kMode == kRqSingleNeg
                            ? fx::MultiplyByQuantizedMultiplierSingleRounding(acc, mult[q], shift[q])
                            : fx::MultiplyByQuantizedMultiplier(acc, mult[q], shift[q]);
      out[i * n_out + oc] =
          static_cast<int8_t>(fx::Clamp(fx::WrapAdd(r, output_offset), act_min, act_max));
    }
  }
}

// Output channels [0, n_out) of np consecutive output pixels whose columns are cols[0..np):
// out[i * n_out + c]. Channel pairs outside (their weights, bias and quantization stay in
// registers), pixel pairs inside. q_step: 1 per-channel quantization, 0 per-tensor.
template <int kMode>
inline void Tile(const int8_t* const* cols, int32_t np, const int8_t* weights, int32_t k,
                 const int32_t* bias, const int32_t* mult, const int32_t* shift, int32_t q_step,
                 int32_t n_out, int32_t output_offset, int32_t act_min, int32_t act_max,
                 int8_t* out, const Preds& pr, int32_t rounding = TF_ROUNDING_SINGLE) {
  const uint32_t no = static_cast<uint32_t>(n_out);
  const uint32x4_t o_off = Lanes4u(0, 1, no, no + 1);
  Out4<kMode> o;
  o.mult = mult;
  o.shift = shift;
  o.output_offset = output_offset;
  o.act_min = act_min;
  o.act_max = act_max;
  o.rounding = rounding;
  for (int32_t oc = 0; oc < n_out; oc += 2) {
    const bool pair = oc + 1 < n_out;
    const int32_t oc1 = pair ? oc + 1 : oc;
    const int8_t* w0 = weights + oc * k;
    const int8_t* w1 = weights + oc1 * k;
    const int32_t b0 = bias[oc], b1 = bias[oc1];
    const int32_t q0 = oc * q_step, q1 = oc1 * q_step;
    o.q[0] = q0;
    o.q[1] = q1;
    o.q[2] = q0;
    o.q[3] = q1;
    if constexpr (kMode != kRqPerElement) {
      const uint32x4_t q_off = Lanes4u(static_cast<uint32_t>(q0), static_cast<uint32_t>(q1),
                                       static_cast<uint32_t>(q0), static_cast<uint32_t>(q1));
      o.m = vldrwq_gather_shifted_offset_s32(mult, q_off);
      o.s = vldrwq_gather_shifted_offset_s32(shift, q_off);
    }
    int8_t* dst = out + oc;
    const int8_t* const* c = cols;
    int32_t i = np;
    if (pair) {
      if constexpr (kMode == kRqDoubleNeg || kMode == kRqSingleNeg) {
        if (i >= 2) {
          TileArgs ta;
          ta.b0 = b0;
          ta.b1 = b1;
          ta.k = k;
          ta.off = output_offset;
          ta.w0 = w0;
          ta.w1 = w1;
          ta.step = 2 * n_out;
          const int32x4_t mn = vdupq_n_s32(act_min), mx = vdupq_n_s32(act_max);
          if constexpr (kMode == kRqSingleNeg) {
            TileRows_Single(&ta, c, dst, i >> 1, o.m, o.s, o_off, mn, mx);
          } else {
            TileRows_DoubleNeg(&ta, c, dst, i >> 1, o.m, o.s, o_off, mn, mx);
          }
          i &= 1;
        }
      }
      for (; i >= 2; i -= 2, c += 2, dst += 2 * n_out) {
        o.Store(Dot2x2(c[0], c[1], w0, w1, k, b0, b1), dst, o_off);
      }
      if (i != 0) o.StoreP(Dot2x2(c[0], c[0], w0, w1, k, b0, b1), dst, o_off, 0x3, pr.first_px);
    } else {
      for (; i >= 2; i -= 2, c += 2, dst += 2 * n_out) {
        o.StoreP(Dot2x2(c[0], c[1], w0, w1, k, b0, b1), dst, o_off, 0x5, pr.first_c);
      }
      if (i != 0) o.StoreP(Dot2x2(c[0], c[0], w0, w1, k, b0, b1), dst, o_off, 0x1, pr.first_both);
    }
  }
}

// Sum of k int8 values.
inline int32_t SumS8(const int8_t* w, int32_t k) {
  int32_t s = 0;
  int32_t n = k >> 4;
  while (n-- > 0) {
    s = vaddvaq_s8(s, vldrbq_s8(w));
    w += 16;
  }
  const int32_t tail = k & 15;
  if (tail != 0) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(tail));
    s = vaddvaq_p_s8(s, vldrbq_z_s8(w, p), p);
  }
  return s;
}

// bias + input_offset * sum(w row) for each of n rows of k weights, into dst (the caller's
// scratch); bias may be null.
inline void EffectiveBias(const int32_t* bias, const int8_t* w, int32_t k, int32_t n,
                          int32_t input_offset, int32_t* dst) {
  for (int32_t i = 0; i < n; ++i) {
    const int32_t b = bias != nullptr ? bias[i] : 0;
    if (input_offset == 0) {
      dst[i] = b;
    } else {
      const uint32_t corr = static_cast<uint32_t>(input_offset) *
                            static_cast<uint32_t>(SumS8(w + i * k, k));
      dst[i] = fx::WrapAdd(b, static_cast<int32_t>(corr));
    }
  }
}

// Copies n bytes (any alignment) with predicated vector moves.
inline void CopyBytes(int8_t* dst, const int8_t* src, int32_t n) {
  while (n > 0) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n));
    vstrbq_p_s8(dst, vldrbq_z_s8(src, p), p);
    dst += 16;
    src += 16;
    n -= 16;
  }
}

inline void FillBytes(int8_t* dst, int8_t value, int32_t n) {
  const int8x16_t v = vdupq_n_s8(value);
  while (n > 0) {
    vstrbq_p_s8(dst, v, vctp8q(static_cast<uint32_t>(n)));
    dst += 16;
    n -= 16;
  }
}

}  // namespace tinyforge::mve

#endif  // TINYFORGE_KERNELS_COMMON_GEMM_MVE_GEMM_H_
