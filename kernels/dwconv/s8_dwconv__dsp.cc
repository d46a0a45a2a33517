// DEPTHWISE_CONV_2D for Cortex-M4/M7/M33 (DSP extension), bit-identical to s8_dwconv__ref.
//
// Lanes path (depth multiplier 1, channels a multiple of 4: 3x3 undilated with stride 2+ or
// at most 16 output pixels, or any other kernel of up to 64 taps, e.g. 5x5; s8_dwconv_dsp_lanes):
// 4 channels at a time straight from NHWC, no scratch (see RunLanes).
//
// Plane path (3x3, depth multiplier 1, dilation 1, any stride and padding): per channel the
// input is copied once into a zero-point padded "plane" (scratch), transposed so that the
// three taps of a kernel column are adjacent bytes (the plane's contiguous axis b is y, or x
// for short images). One word load then feeds two outputs of stride-1 layers:
//   word = [x0 x1 x2 x3], E = SXTB16(word) = (x0, x2), O = SXTB16(word ror 8) = (x1, x3)
//   out0 += SMLAD(E, (w0, w2)) + x1 * w1   (SMLABB on O)
//   out1 += SMLAD(O, (w0, w2)) + x2 * w1   (SMLATB on E)
// i.e. 7 instructions per 6 MACs; the input offset is folded into the bias (padding holds
// the zero point). Requantization is scalar and exact in both rounding modes: channels with
// |acc| < 2^30 and shift in [-22, -1] double their weights and bias and requantize with one
// SMMLAR / SMMLA (kDoubled, the offset folded in), others use the generic exact fallback.
//
// General path (depth multiplier > 1, channels not a multiple of 4): the reference loop.
#include "kernels/dwconv/dwconv.h"
#include "kernels/common/isa.h"
#include "kernels/common/word.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/common/fixed_point.h"

namespace {

using tinyforge::LoadWord;
using tinyforge::dsp::Sxtb16Ror8;

namespace fx = tinyforge::fx;

// Per-channel requantization constants.
struct Quant {
  int32_t mult;
  int32_t shift;
  int32_t n;      // kDoubled: right shift e; kGeneric: the rounding mode
  int32_t round;  // kDoubled: c
  int32_t off;    // output offset
  int32_t lo, hi;
};

// Doubled channels (|acc| < 2^30, shift in [-22, -1]): the weights and the init are doubled,
// so the accumulator is X = 2 * acc, and with e = -shift, c = offset * 2^e + 2^(e-1):
//   double rounding: SRDHM(acc, m) = floor((X * m + 2^31) / 2^32), so
//     SMMLAR(X, m, c + [X < 0] * -1) = c + SRDHM - [acc < 0] and the rounding shift with ties
//     away from zero plus the offset is that >> e (s8_conv__dsp.cc proves the [h < 0] ->
//     [X < 0] swap: when X < 0 and h == 0 the -1 does not change the floor).
//   single rounding: floor((acc * m + 2^(30+e)) / 2^(31+e)) + offset = SMMLA(X, m, c) >> e.
// |c| < 2^29 + 2^21 and |h| < 2^30: no overflow.
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

enum Mode { kGeneric, kDoubled };

template <Mode kMode, bool kSingle>
inline int32_t Requant(int32_t acc, const Quant& q) {
  if (kMode == kDoubled) {
    if (kSingle) return Smmla(acc, q.mult, q.round) >> q.n;
    return Smmlar(acc, q.mult, q.round + (acc >> 31)) >> q.n;
  }
  return fx::WrapAdd(fx::Requantize(acc, q.mult, q.shift, q.n), q.off);  // kGeneric: n = rounding
}

template <bool kClamp>
inline int8_t Clamp(int32_t v, const Quant& q) {
  if (kClamp) return static_cast<int8_t>(fx::Clamp(v, q.lo, q.hi));
  return static_cast<int8_t>(__ssat(v, 8));
}

struct Geo {
  bool y;  // b (the plane's contiguous axis) is y
  int32_t n_a_out, n_b_out, s_a, s_b, pad_a, pad_b, in_a, in_b;
  int32_t in_step_a, in_step_b, out_step_a, out_step_b;
  int32_t n_a, pitch;
};

constexpr int32_t kMaxPlane = 16384;

// The plane geometry (b: the contiguous axis), or n_a == 0 when the fast path does not apply.
Geo MakeGeo(const s8_dwconv_params& p) {
  Geo g{};
  if (p.depth_multiplier != 1 || p.k_h != 3 || p.k_w != 3 || p.dilation_h != 1 ||
      p.dilation_w != 1) {
    return g;
  }
  const bool y = p.out_h >= p.out_w;  // pairs of outputs along the longer axis
  g.y = y;
  g.n_a_out = y ? p.out_w : p.out_h;
  g.n_b_out = y ? p.out_h : p.out_w;
  g.s_a = y ? p.stride_w : p.stride_h;
  g.s_b = y ? p.stride_h : p.stride_w;
  g.pad_a = y ? p.pad_left : p.pad_top;
  g.pad_b = y ? p.pad_top : p.pad_left;
  g.in_a = y ? p.in_w : p.in_h;
  g.in_b = y ? p.in_h : p.in_w;
  g.in_step_a = y ? p.in_c : p.in_w * p.in_c;
  g.in_step_b = y ? p.in_w * p.in_c : p.in_c;
  g.out_step_a = y ? p.out_c : p.out_w * p.out_c;
  g.out_step_b = y ? p.out_w * p.out_c : p.out_c;
  // Rows read: a word (4 bytes) from every output's first tap row. Same sizes as
  // s8_dwconv_dsp_scratch_bytes (dwconv.h).
  const int64_t n_a = int64_t{g.n_a_out - 1} * g.s_a + 3;
  const int64_t pitch = int64_t{g.n_b_out - 1} * g.s_b + 4;
  if (n_a * pitch > kMaxPlane) return Geo{};
  g.n_a = static_cast<int32_t>(n_a);
  g.pitch = static_cast<int32_t>(pitch);
  return g;
}

// Copies input channel c into the plane's data region (the padding keeps the zero point).
void FillPlane(const Geo& g, const int8_t* in, int32_t c, int8_t* plane) {
  const int32_t a0 = g.pad_a, a1 = fx::Min(g.n_a, g.pad_a + g.in_a);
  const int32_t j0 = g.pad_b, j1 = fx::Min(g.pitch, g.pad_b + g.in_b);
  const int32_t rows = j1 - j0;
  if (rows <= 0) return;
  const int32_t step_b = g.in_step_b;
  const int8_t* src_col = in + c;
  int8_t* dst_col = plane + a0 * g.pitch + j0;
  for (int32_t a = a0; a < a1; ++a, src_col += g.in_step_a, dst_col += g.pitch) {
    const uint8_t* src = reinterpret_cast<const uint8_t*>(src_col);
    int8_t* dst = dst_col;
    int32_t j = 0;
    for (; j + 4 <= rows; j += 4, dst += 4) {
      uint32_t v = *src;
      src += step_b;
      v |= static_cast<uint32_t>(*src) << 8;
      src += step_b;
      v |= static_cast<uint32_t>(*src) << 16;
      src += step_b;
      v |= static_cast<uint32_t>(*src) << 24;
      src += step_b;
      __builtin_memcpy(dst, &v, 4);  // one (unaligned) STR
    }
    for (; j < rows; ++j, src += step_b) *dst++ = static_cast<int8_t>(*src);
  }
}

struct Weights {
  int32_t w02[3];  // per ka: (w[ka][0], w[ka][2]) as int16 pair (bottom, top)
  int32_t w1_01;   // (w[0][1], w[1][1])
  int32_t w1_2;    // w[2][1]
};

inline int32_t Pack(int32_t lo, int32_t hi) {
  return static_cast<int32_t>((static_cast<uint32_t>(lo) & 0xFFFFu) |
                              (static_cast<uint32_t>(hi) << 16));
}

// One kernel column ka for output b (word = plane bytes of rows b..b+3 of column a+ka).
template <int kKa>
inline int32_t Tap1(int32_t word, const Weights& w, int32_t acc) {
  const int32_t e = __sxtb16(word), o = Sxtb16Ror8(word);
  acc = __smlad(e, w.w02[kKa], acc);
  if (kKa == 0) return __smlabb(o, w.w1_01, acc);
  if (kKa == 1) return __smlabt(o, w.w1_01, acc);
  return __smlabb(o, w.w1_2, acc);
}
// The same for two adjacent outputs b, b+1 (stride 1 along b).
template <int kKa>
inline void Tap2(int32_t word, const Weights& w, int32_t& acc0, int32_t& acc1) {
  const int32_t e = __sxtb16(word), o = Sxtb16Ror8(word);
  acc0 = __smlad(e, w.w02[kKa], acc0);
  acc1 = __smlad(o, w.w02[kKa], acc1);
  if (kKa == 0) {
    acc0 = __smlabb(o, w.w1_01, acc0);
    acc1 = __smlatb(e, w.w1_01, acc1);
  } else if (kKa == 1) {
    acc0 = __smlabt(o, w.w1_01, acc0);
    acc1 = __smlatt(e, w.w1_01, acc1);
  } else {
    acc0 = __smlabb(o, w.w1_2, acc0);
    acc1 = __smlatb(e, w.w1_2, acc1);
  }
}

template <Mode kMode, bool kSingle, bool kClamp>
void Channel(const Geo& g, const int8_t* plane, const Weights& w, int32_t init, const Quant& q,
             int8_t* out) {
  const int32_t pitch = g.pitch, col_step = g.s_a * g.pitch, s_b = g.s_b;
  const int32_t nb = g.n_b_out, out_step_b = g.out_step_b;
  const int8_t* col = plane;
  for (int32_t a = 0; a < g.n_a_out; ++a, col += col_step, out += g.out_step_a) {
    const int8_t* c0 = col;
    const int8_t* c1 = col + pitch;
    const int8_t* c2 = col + 2 * pitch;
    int8_t* o = out;
    int32_t b = 0;
    if (s_b == 1) {
      for (; b + 2 <= nb; b += 2, o += 2 * out_step_b) {
        int32_t acc0 = init, acc1 = init;
        Tap2<0>(LoadWord(c0 + b), w, acc0, acc1);
        Tap2<1>(LoadWord(c1 + b), w, acc0, acc1);
        Tap2<2>(LoadWord(c2 + b), w, acc0, acc1);
        o[0] = Clamp<kClamp>(Requant<kMode, kSingle>(acc0, q), q);
        o[out_step_b] = Clamp<kClamp>(Requant<kMode, kSingle>(acc1, q), q);
      }
    }
    for (; b < nb; ++b, o += out_step_b) {
      const int32_t r = b * s_b;
      int32_t acc = Tap1<0>(LoadWord(c0 + r), w, init);
      acc = Tap1<1>(LoadWord(c1 + r), w, acc);
      acc = Tap1<2>(LoadWord(c2 + r), w, acc);
      o[0] = Clamp<kClamp>(Requant<kMode, kSingle>(acc, q), q);
    }
  }
}

// The generic channel (rare), one out-of-line copy for every rounding and clamp.
__attribute__((noinline)) void ChannelGeneric(const Geo& g, const int8_t* plane,
                                              const Weights& w, int32_t init, const Quant& q,
                                              int8_t* out) {
  Channel<kGeneric, false, true>(g, plane, w, init, q, out);
}

template <bool kSingle, bool kClamp>
void RunFast(const s8_dwconv_params& p, const Geo& g, const int8_t* in, const int8_t* weights,
             const int32_t* bias, int8_t* out, int8_t* plane) {
  const int32_t C = p.out_c;
  const bool y = g.y;
  for (int32_t c = 0; c < C; ++c) {
    FillPlane(g, in, c, plane);
    // Weights in plane order: ka along a, kb along b.
    int32_t wk[3][3];
    int32_t sum = 0;
    for (int ka = 0; ka < 3; ++ka) {
      for (int kb = 0; kb < 3; ++kb) {
        const int ky = y ? kb : ka, kx = y ? ka : kb;
        wk[ka][kb] = weights[(ky * 3 + kx) * C + c];
        sum += wk[ka][kb];
      }
    }
    const int32_t init = fx::WrapAdd(bias != nullptr ? bias[c] : 0, p.input_offset * sum);
    Quant q;
    q.mult = p.multiplier[c];
    q.shift = p.shift[c];
    q.off = p.output_offset;
    q.lo = p.act_min;
    q.hi = p.act_max;
    q.n = 0;
    q.round = 0;
    // |acc| <= |init| + 9 * 128 * 128.
    const int64_t bound = (init < 0 ? -int64_t{init} : int64_t{init}) + 9 * 128 * 128;
    const bool doubled = q.shift <= -1 && q.shift >= -22 && bound < (int64_t{1} << 30);
    const int32_t f = doubled ? 2 : 1;
    Weights w;
    for (int ka = 0; ka < 3; ++ka) w.w02[ka] = Pack(f * wk[ka][0], f * wk[ka][2]);
    w.w1_01 = Pack(f * wk[0][1], f * wk[1][1]);
    w.w1_2 = Pack(f * wk[2][1], 0);
    int8_t* o = out + c;
    if (doubled) {
      q.n = -q.shift;
      q.round = static_cast<int32_t>(static_cast<uint32_t>(2 * p.output_offset + 1) << q.n) >> 1;
      q.off = 0;  // folded into round
      Channel<kDoubled, kSingle, kClamp>(g, plane, w, 2 * init, q, o);
    } else {
      q.n = p.rounding;  // the generic path reads the rounding mode from n
      ChannelGeneric(g, plane, w, init, q, o);
    }
  }
}

// ---- Lanes path: 4 channels at a time, straight from NHWC ------------------------------------
// For stride-2 layers and small planes the per-channel plane costs more than it saves. Here
// one input word holds 4 adjacent channels: SXTAB16 gives (c0, c2) and (c1, c3) + the input
// offset, each tap's 4 weights are widened once per channel group the same way, and SMLABB /
// SMLATT accumulate 4 outputs: 9 instructions per tap (4 MACs). Taps outside the input are
// skipped (x + offset is 0 there). Fast lanes (shift in [-22, -1], |bias| + 9 * 255 * 128 <
// 2^30): doubled weights and bias, requantized like kDoubled. A group with another lane runs
// undoubled with the exact generic requantization.
template <bool kSingle, bool kClamp, bool kFast>
inline int8_t LaneOut(int32_t acc, int32_t m, int32_t c, int32_t e, const s8_dwconv_params& p,
                      int32_t ch) {
  int32_t v;
  if constexpr (kFast) {
    v = kSingle ? (Smmla(acc, m, c) >> e) : (Smmlar(acc, m, c + (acc >> 31)) >> e);
  } else {
    v = fx::WrapAdd(fx::Requantize(acc, p.multiplier[ch], p.shift[ch], p.rounding), p.output_offset);
  }
  if constexpr (kClamp) return static_cast<int8_t>(fx::Clamp(v, p.act_min, p.act_max));
  return static_cast<int8_t>(__ssat(v, 8));
}

struct LaneAcc {
  int32_t a0, a1, a2, a3;
};

inline void LaneTap(const int8_t* src, uint32_t off2, const uint32_t* w, LaneAcc& a) {
  const uint32_t x = static_cast<uint32_t>(LoadWord(src));
  const uint32_t x02 = __sxtab16(off2, x);
  uint32_t x13;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(x13) : "r"(off2), "r"(x));
  a.a0 = __smlabb(x02, w[0], a.a0);
  a.a2 = __smlatt(x02, w[0], a.a2);
  a.a1 = __smlabb(x13, w[1], a.a1);
  a.a3 = __smlatt(x13, w[1], a.a3);
}

template <bool kSingle, bool kClamp, bool kFast>
void LaneGroup(const s8_dwconv_params& p, const int8_t* in, const uint32_t* w,
               const int32_t* init, const int32_t* m, const int32_t* c, const int32_t* e,
               int32_t c0, int8_t* out) {
  const int32_t C = p.in_c, W = p.in_w, H = p.in_h;
  const int32_t row = W * C;
  const uint32_t off2 = (static_cast<uint32_t>(p.input_offset) & 0xFFFFu) * 0x10001u;
  for (int32_t oy = 0; oy < p.out_h; ++oy) {
    const int32_t iy0 = oy * p.stride_h - p.pad_top;
    const bool y_in = iy0 >= 0 && iy0 + 2 < H;
    int8_t* o = out + oy * p.out_w * C + c0;
    for (int32_t ox = 0; ox < p.out_w; ++ox, o += C) {
      const int32_t ix0 = ox * p.stride_w - p.pad_left;
      LaneAcc a{init[0], init[1], init[2], init[3]};
      const int8_t* src = in + (iy0 * W + ix0) * C + c0;
      if (y_in && ix0 >= 0 && ix0 + 2 < W) {
        LaneTap(src, off2, w, a);
        LaneTap(src + C, off2, w + 2, a);
        LaneTap(src + 2 * C, off2, w + 4, a);
        LaneTap(src + row, off2, w + 6, a);
        LaneTap(src + row + C, off2, w + 8, a);
        LaneTap(src + row + 2 * C, off2, w + 10, a);
        LaneTap(src + 2 * row, off2, w + 12, a);
        LaneTap(src + 2 * row + C, off2, w + 14, a);
        LaneTap(src + 2 * row + 2 * C, off2, w + 16, a);
      } else {
        for (int32_t ky = 0; ky < 3; ++ky) {
          const int32_t iy = iy0 + ky;
          if (iy < 0 || iy >= H) continue;
          for (int32_t kx = 0; kx < 3; ++kx) {
            const int32_t ix = ix0 + kx;
            if (ix < 0 || ix >= W) continue;
            LaneTap(src + ky * row + kx * C, off2, w + 2 * (ky * 3 + kx), a);
          }
        }
      }
      o[0] = LaneOut<kSingle, kClamp, kFast>(a.a0, m[0], c[0], e[0], p, c0);
      o[1] = LaneOut<kSingle, kClamp, kFast>(a.a1, m[1], c[1], e[1], p, c0 + 1);
      o[2] = LaneOut<kSingle, kClamp, kFast>(a.a2, m[2], c[2], e[2], p, c0 + 2);
      o[3] = LaneOut<kSingle, kClamp, kFast>(a.a3, m[3], c[3], e[3], p, c0 + 3);
    }
  }
}

// Any other kernel (5x5: MobileNetV3, EfficientNet; dilation; depth multiplier 1, channels a
// multiple of 4): the same taps over each output's window clipped to the input once (no
// per-tap checks). These ran the reference loop.
template <bool kSingle, bool kClamp, bool kFast>
void LaneGroupAny(const s8_dwconv_params& p, const int8_t* in, const uint32_t* w,
                  const int32_t* init, const int32_t* m, const int32_t* c, const int32_t* e,
                  int32_t c0, int8_t* out) {
  using tinyforge::dwconv::ValidTaps;
  const int32_t C = p.in_c, W = p.in_w;
  const int32_t x_col = p.dilation_w * C, x_row = p.dilation_h * W * C, w_row = 2 * p.k_w;
  const uint32_t off2 = (static_cast<uint32_t>(p.input_offset) & 0xFFFFu) * 0x10001u;
  for (int32_t oy = 0; oy < p.out_h; ++oy) {
    const int32_t iy0 = oy * p.stride_h - p.pad_top;
    int32_t ky0, ky1;
    ValidTaps(iy0, p.dilation_h, p.k_h, p.in_h, &ky0, &ky1);
    int8_t* o = out + oy * p.out_w * C + c0;
    for (int32_t ox = 0; ox < p.out_w; ++ox, o += C) {
      const int32_t ix0 = ox * p.stride_w - p.pad_left;
      int32_t kx0, kx1;
      ValidTaps(ix0, p.dilation_w, p.k_w, W, &kx0, &kx1);
      LaneAcc a{init[0], init[1], init[2], init[3]};
      const int8_t* src_row =
          in + ((iy0 + ky0 * p.dilation_h) * W + ix0 + kx0 * p.dilation_w) * C + c0;
      const uint32_t* w_at = w + 2 * (ky0 * p.k_w + kx0);
      for (int32_t ky = ky0; ky < ky1; ++ky, src_row += x_row, w_at += w_row) {
        const int8_t* src = src_row;
        const uint32_t* wt = w_at;
        for (int32_t kx = kx0; kx < kx1; ++kx, src += x_col, wt += 2) LaneTap(src, off2, wt, a);
      }
      o[0] = LaneOut<kSingle, kClamp, kFast>(a.a0, m[0], c[0], e[0], p, c0);
      o[1] = LaneOut<kSingle, kClamp, kFast>(a.a1, m[1], c[1], e[1], p, c0 + 1);
      o[2] = LaneOut<kSingle, kClamp, kFast>(a.a2, m[2], c[2], e[2], p, c0 + 2);
      o[3] = LaneOut<kSingle, kClamp, kFast>(a.a3, m[3], c[3], e[3], p, c0 + 3);
    }
  }
}

// A group with a slow lane (rare), one out-of-line copy.
__attribute__((noinline)) void LaneGeneric(const s8_dwconv_params& p, const int8_t* in,
                                           const uint32_t* w, const int32_t* init,
                                           const int32_t* m, const int32_t* c, const int32_t* e,
                                           int32_t c0, int8_t* out) {
  if (p.k_h == 3 && p.k_w == 3 && p.dilation_h == 1 && p.dilation_w == 1) {
    LaneGroup<false, true, false>(p, in, w, init, m, c, e, c0, out);
  } else {
    LaneGroupAny<false, true, false>(p, in, w, init, m, c, e, c0, out);
  }
}

// kAny: any kernel (LaneGroupAny); else 3x3 undilated (LaneGroup, its 9 taps unrolled).
template <bool kSingle, bool kClamp, bool kAny>
void RunLanes(const s8_dwconv_params& p, const int8_t* in, const int8_t* weights,
              const int32_t* bias, int8_t* out) {
  const int32_t C = p.in_c, taps = kAny ? p.k_h * p.k_w : 9;
  for (int32_t c0 = 0; c0 < C; c0 += 4) {
    bool fast = true;
    int32_t init[4], m[4], c[4], e[4];
    for (int32_t l = 0; l < 4; ++l) {
      const int32_t ch = c0 + l;
      const int32_t b = bias != nullptr ? bias[ch] : 0;
      const int32_t s = p.shift[ch];
      const int64_t ab = b < 0 ? -int64_t{b} : int64_t{b};
      if (!(s <= -1 && s >= -22 && ab + int64_t{taps} * 255 * 128 < (int64_t{1} << 30))) {
        fast = false;
      }
      m[l] = p.multiplier[ch];
      e[l] = -s;
      init[l] = b;
      c[l] = 0;
    }
    uint32_t w[kAny ? 2 * kS8DwconvDspLaneTaps : 18];
    for (int32_t t = 0; t < taps; ++t) {
      const uint32_t v = static_cast<uint32_t>(LoadWord(weights + t * C + c0));
      uint32_t lo = __sxtb16(v), hi = static_cast<uint32_t>(Sxtb16Ror8(static_cast<int32_t>(v)));
      if (fast) {
        lo = __sadd16(lo, lo);
        hi = __sadd16(hi, hi);
      }
      w[2 * t] = lo;
      w[2 * t + 1] = hi;
    }
    if (fast) {
      for (int32_t l = 0; l < 4; ++l) {
        init[l] *= 2;
        c[l] = static_cast<int32_t>(static_cast<uint32_t>(2 * p.output_offset + 1) << e[l]) >> 1;
      }
      if constexpr (kAny) {
        LaneGroupAny<kSingle, kClamp, true>(p, in, w, init, m, c, e, c0, out);
      } else {
        LaneGroup<kSingle, kClamp, true>(p, in, w, init, m, c, e, c0, out);
      }
    } else {
      LaneGeneric(p, in, w, init, m, c, e, c0, out);
    }
  }
}

}  // namespace

extern "C" void s8_dwconv__dsp(const s8_dwconv_params* params, const int8_t* input,
                               const int8_t* weights, const int32_t* bias, int8_t* output,
                               void* scratch) {
  const s8_dwconv_params& p = *params;
  if (s8_dwconv_dsp_lanes(p)) {
    const bool clamp = p.act_min > -128 || p.act_max < 127;
    const bool single = p.rounding == TF_ROUNDING_SINGLE;
    const bool any = p.k_h != 3 || p.k_w != 3 || p.dilation_h != 1 || p.dilation_w != 1;
    for (int32_t b = 0; b < p.batches; ++b) {
      const int8_t* in = input + b * p.in_h * p.in_w * p.in_c;
      int8_t* out = output + b * p.out_h * p.out_w * p.out_c;
      if (any) {
        if (single) {
          clamp ? RunLanes<true, true, true>(p, in, weights, bias, out)
                : RunLanes<true, false, true>(p, in, weights, bias, out);
        } else {
          clamp ? RunLanes<false, true, true>(p, in, weights, bias, out)
                : RunLanes<false, false, true>(p, in, weights, bias, out);
        }
      } else if (single) {
        clamp ? RunLanes<true, true, false>(p, in, weights, bias, out)
              : RunLanes<true, false, false>(p, in, weights, bias, out);
      } else {
        clamp ? RunLanes<false, true, false>(p, in, weights, bias, out)
              : RunLanes<false, false, false>(p, in, weights, bias, out);
      }
    }
    return;
  }
  const Geo g = MakeGeo(p);
  if (g.n_a == 0 || scratch == nullptr || s8_dwconv_dsp_scratch_bytes(p) == 0) {
    s8_dwconv__ref(params, input, weights, bias, output, nullptr);  // the general case
    return;
  }
  int8_t* plane = static_cast<int8_t*>(scratch);
  // Padding: the zero point, once (every channel overwrites the same data region).
  const int8_t zp = static_cast<int8_t>(-p.input_offset);
  const int32_t bytes = g.n_a * g.pitch;
  const uint32_t zp4 = 0x01010101u * static_cast<uint8_t>(zp);
  int32_t i = 0;
  for (; i + 4 <= bytes; i += 4) __builtin_memcpy(plane + i, &zp4, 4);
  for (; i < bytes; ++i) plane[i] = zp;
  const bool clamp = p.act_min > -128 || p.act_max < 127;
  const bool single = p.rounding == TF_ROUNDING_SINGLE;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* in = input + b * p.in_h * p.in_w * p.in_c;
    int8_t* out = output + b * p.out_h * p.out_w * p.out_c;
    if (single) {
      clamp ? RunFast<true, true>(p, g, in, weights, bias, out, plane)
            : RunFast<true, false>(p, g, in, weights, bias, out, plane);
    } else {
      clamp ? RunFast<false, true>(p, g, in, weights, bias, out, plane)
            : RunFast<false, false>(p, g, in, weights, bias, out, plane);
    }
  }
}

#endif  // TF_HAVE_DSP
