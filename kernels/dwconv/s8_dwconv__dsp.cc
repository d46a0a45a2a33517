// DEPTHWISE_CONV_2D for Cortex-M4/M7/M33 (DSP extension), bit-identical to s8_dwconv__ref.
//
// Lanes path (depth multiplier 1, channels a multiple of 4: 3x3 undilated with stride 2+ or
// at most 16 output pixels, or any other kernel of up to 64 taps, e.g. 5x5; s8_dwconv_dsp_lanes):
// 4 channels at a time straight from NHWC, no scratch (see RunLanes).
//
// Plane path (3x3, dilation 1, any depth multiplier, stride and padding): per input channel
// the input is copied once into a zero-point padded "plane" (scratch; its depth multiplier's
// output channels all read it), transposed so that the
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
// General path (other kernels with depth multiplier > 1 or channels not a multiple of 4, a
// plane over 16 KiB): the reference loop.
#include "kernels/dwconv/dwconv.h"
#include "kernels/common/isa.h"
#include "kernels/common/word.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/common/fixed_point.h"
#include "kernels/dwconv/dsp_dwconv.h"

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
#include "kernels/dwconv/dsp_lanes.inc"

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
  if (p.k_h != 3 || p.k_w != 3 || p.dilation_h != 1 || p.dilation_w != 1) return g;
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
  int32_t ic = 0, j = 0;  // input channel, and output c's place among its m outputs
  for (int32_t c = 0; c < C; ++c) {
    // Depth multiplier m: output channels ic*m .. ic*m+m-1 read input channel ic's plane.
    if (j == 0) FillPlane(g, in, ic, plane);
    if (++j == p.depth_multiplier) j = 0, ++ic;
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

}  // namespace

extern "C" void s8_dwconv__dsp(const s8_dwconv_params* params, const int8_t* input,
                               const int8_t* weights, const int32_t* bias, int8_t* output,
                               void* scratch) {
  const s8_dwconv_params& p = *params;
  if (s8_dwconv_dsp_lanes(p)) {
    if (p.k_h != 3 || p.k_w != 3 || p.dilation_h != 1 || p.dilation_w != 1) {
      // Any other kernel: a path linked on demand (dsp_lanes.inc), else the reference loop.
      if (tinyforge::dwconv_dsp::s8_dwconv__dsp__any != nullptr) {
        tinyforge::dwconv_dsp::s8_dwconv__dsp__any(p, input, weights, bias, output);
      } else {
        s8_dwconv__ref(params, input, weights, bias, output, nullptr);
      }
      return;
    }
    RunLanesBatches<false>(p, input, weights, bias, output);
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
