// ADD for Cortex-M4/M7/M33 (DSP extension), bit-identical to s8_add__ref in both rounding
// modes.
//
// Scalar per element, with every requantization an SMMUL/SMMULR on a doubled operand:
//   double rounding: SRDHM(x, m) = floor((x * m + 2^30) / 2^31) = SMMULR(2x, m), then the
//                    rounding shift by n = -shift with ties away from zero:
//                    (r + (r < 0 ? 1 : 0) * -1 + 2^(n-1)) >> n, branch-free with a mask
//                    (mask 0, round 0 when n == 0);
//   single rounding: floor((x * m + 2^(30 + n)) / 2^(31 + n)) = (SMMUL(2x, m) + 2^(n-1)) >> n
//                    for n >= 1, and (SMMUL(4x, m) + 1) >> 1 for n == 0.
// All operands stay below 2^29 in magnitude (|x + offset| <= 255, left shift 20), so the
// doubled values cannot overflow; other parameter sets run the reference arithmetic. Long
// elementwise adds look the rescaled inputs up in two 256-entry tables (each input's stage
// depends on its byte only), leaving the output stage per element.
#include "kernels/add/add.h"
#include "kernels/common/isa.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/add/add_stage.h"
#include "kernels/common/fixed_point.h"

namespace {

namespace fx = tinyforge::fx;

inline int32_t Smmulr(int32_t a, int32_t b) {
  int32_t r;
  __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
inline int32_t Smmul(int32_t a, int32_t b) {
  int32_t r;
  __asm__("smmul %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

// Elementwise adds at least this long use the per-input lookup tables.
constexpr int32_t kLutMinElements = 1024;

using tinyforge::add_stage::MakeStage;
using tinyforge::add_stage::Stage;

template <bool kSingle>
inline int32_t Apply(int32_t x, const Stage& s) {
  if (kSingle) return (Smmul(x << s.pre, s.mult) + s.round) >> s.n;
  const int32_t r = Smmulr(x << 1, s.mult);
  return (r + ((r >> 31) & s.mask) + s.round) >> s.n;
}

struct Consts {
  Stage in1, in2, out;
  int32_t c1, c2;  // offset << left_shift
  int32_t left_shift;
  int32_t out_off, lo, hi;
};

template <bool kSingle, bool kClamp, bool kSub>
inline int8_t AddOne(const Consts& k, int32_t x1, int32_t x2) {
  const int32_t a = Apply<kSingle>(k.c1 + (x1 << k.left_shift), k.in1);
  const int32_t b = Apply<kSingle>(k.c2 + (x2 << k.left_shift), k.in2);
  const int32_t y = Apply<kSingle>(kSub ? a - b : a + b, k.out) + k.out_off;
  if (kClamp) return static_cast<int8_t>(fx::Clamp(y, k.lo, k.hi));
  return static_cast<int8_t>(__ssat(y, 8));
}

template <bool kSingle, bool kClamp, bool kSub>
void Run(const s8_add_params& p, const Consts& consts, const int8_t* in1, const int8_t* in2,
         int8_t* out) {
  const Consts k = consts;  // a local copy: the byte stores below cannot alias it
  const s8_broadcast_shape& s = p.shape;
  const auto [total, plain] = tinyforge::kernels::Extent(s);
  if (plain && total >= kLutMinElements) {
    // Each input's rescaled value depends on its byte only: two 256-entry tables (2 KiB of
    // stack), built with the same arithmetic, replace the input stages.
    int32_t lut1[256], lut2[256];
    for (int32_t v = 0; v < 256; ++v) {
      const int32_t x = static_cast<int8_t>(v);
      lut1[v] = Apply<kSingle>(k.c1 + (x << k.left_shift), k.in1);
      const int32_t b = Apply<kSingle>(k.c2 + (x << k.left_shift), k.in2);
      lut2[v] = kSub ? -b : b;  // sub: the table holds -b
    }
    const uint8_t* u1 = reinterpret_cast<const uint8_t*>(in1);
    const uint8_t* u2 = reinterpret_cast<const uint8_t*>(in2);
    for (int32_t i = 0; i < total; ++i) {
      const int32_t y = Apply<kSingle>(lut1[u1[i]] + lut2[u2[i]], k.out) + k.out_off;
      out[i] = kClamp ? static_cast<int8_t>(fx::Clamp(y, k.lo, k.hi))
                      : static_cast<int8_t>(__ssat(y, 8));
    }
    return;
  }
  if (plain) {
    int32_t i = 0;
    for (; i + 2 <= total; i += 2) {
      const int8_t y0 = AddOne<kSingle, kClamp, kSub>(k, in1[i], in2[i]);
      const int8_t y1 = AddOne<kSingle, kClamp, kSub>(k, in1[i + 1], in2[i + 1]);
      out[i] = y0;
      out[i + 1] = y1;
    }
    if (i < total) out[i] = AddOne<kSingle, kClamp, kSub>(k, in1[i], in2[i]);
    return;
  }
  tinyforge::kernels::ForEachBroadcast(s, [&](int32_t i1, int32_t i2, int32_t o) {
    out[o] = AddOne<kSingle, kClamp, kSub>(k, in1[i1], in2[i2]);
  });
}

}  // namespace

namespace {

inline int32_t Smmla(int32_t a, int32_t b, int32_t acc) {
  int32_t r;
  __asm__("smmla %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  return r;
}
inline int32_t Mla(int32_t a, int32_t b, int32_t acc) {
  int32_t r;
  __asm__("mla %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  return r;
}

// Plain single-rounding ADD with one input's stage an exact halving (multiplier 2^30, shift
// 0: TFLite's parameters give it to the input with the larger scale; s8_add__mve.cc's
// HalfRow has why it is exact): with g the other input (shift -n_g <= -1) and h the halved
// one, per element
//   B' = SMMLA(2 X_g, m_g, 2^(n_g - 1) + c_h * 2^n_g) >> n_g = B + c_h,
//        X_g = (x_g + o_g) << left_shift, c_h = o_h << (left_shift - 1)   (one MLA)
//   S  = x_h * 2^(left_shift - 1) + B'                                    (MLA)
//   y  = SSAT8(SMMLA(S, M, 2^(n - 2) + off * 2^(n - 1)) >> (n - 1))      (n >= 2)
// (SMMLA(a, b, r) = r + floor(a * b / 2^32), and floor(floor(u) + k) / 2^s) =
// floor((u + k) / 2^s): the single-rounding stages with the offsets folded in.)
struct HalfK {
  int32_t sc2, cg2, mg, rg, ng, half, mo, ro, fo, lo, hi;
};

// kLs20: left_shift 20 (TFLite's, for int8), the two power-of-two multiplies as shifted
// adds (two registers fewer in the loop).
template <bool kClamp, bool kLs20>
__attribute__((noinline)) void HalfRow(const HalfK& kk, const int8_t* xg, const int8_t* xh,
                                       int8_t* out, int32_t n) {
  const HalfK k = kk;
  const auto one = [&k](int8_t g, int8_t h) {
    const int32_t xg2 = kLs20 ? k.cg2 + g * (1 << 21) : Mla(g, k.sc2, k.cg2);
    const int32_t b = Smmla(xg2, k.mg, k.rg) >> k.ng;
    const int32_t y = Smmla(kLs20 ? b + h * (1 << 19) : Mla(h, k.half, b), k.mo, k.ro) >> k.fo;
    return kClamp ? static_cast<int8_t>(fx::Clamp(y, k.lo, k.hi))
                  : static_cast<int8_t>(__ssat(y, 8));
  };
  for (int32_t i = 0; i < n; ++i) out[i] = one(xg[i], xh[i]);  // in place: read, then store
}

// The HalfRow constants, or false when the parameters do not fit its form.
inline bool MakeHalf(const s8_add_params& p, bool h_is_1, HalfK* k) {
  const int32_t mh = h_is_1 ? p.input1_multiplier : p.input2_multiplier;
  const int32_t shh = h_is_1 ? p.input1_shift : p.input2_shift;
  const int32_t sg = h_is_1 ? p.input2_shift : p.input1_shift;
  const int32_t oh = h_is_1 ? p.input1_offset : p.input2_offset;
  const int32_t og = h_is_1 ? p.input2_offset : p.input1_offset;
  if (p.rounding != TF_ROUNDING_SINGLE || mh != (1 << 30) || shh != 0) return false;
  if (p.left_shift < 1 || p.left_shift > 20) return false;
  if (sg > -1 || sg < -23 || p.output_shift > -2 || p.output_shift < -23) return false;
  const int64_t c = (int64_t{oh} << (p.left_shift - 1)) << -sg;
  if (c < -(int64_t{1} << 29) || c > (int64_t{1} << 29)) return false;
  k->sc2 = 1 << (p.left_shift + 1);
  k->cg2 = og * (1 << (p.left_shift + 1));
  k->mg = h_is_1 ? p.input2_multiplier : p.input1_multiplier;
  k->ng = -sg;
  k->rg = (1 << (k->ng - 1)) + static_cast<int32_t>(c);
  k->half = 1 << (p.left_shift - 1);
  const int32_t n = -p.output_shift;
  k->mo = p.output_multiplier;
  k->ro = (1 << (n - 2)) + p.output_offset * (1 << (n - 1));
  k->fo = n - 1;
  k->lo = p.act_min;
  k->hi = p.act_max;
  return true;
}

// True when HalfRow ran the op.
inline bool TryHalf(const s8_add_params& p, const int8_t* in1, const int8_t* in2, int8_t* out) {
  const auto [total, plain] = tinyforge::kernels::Extent(p.shape);
  if (!plain) return false;
  HalfK k;
  const int8_t* xg;
  const int8_t* xh;
  if (MakeHalf(p, true, &k)) {
    xg = in2;
    xh = in1;
  } else if (MakeHalf(p, false, &k)) {
    xg = in1;
    xh = in2;
  } else {
    return false;
  }
  const bool clamp = p.act_min > -128 || p.act_max < 127;
  if (p.left_shift == 20) {
    (clamp ? HalfRow<true, true> : HalfRow<false, true>)(k, xg, xh, out, total);
  } else {
    (clamp ? HalfRow<true, false> : HalfRow<false, false>)(k, xg, xh, out, total);
  }
  return true;
}

}  // namespace

namespace {

// The linear form the compiler proved exact (s8_add_params::lin_*, kernels/add/add_linear.h):
// per element two multiply-accumulates (SMLAW on the bytes of word loads), SSAT with the
// shift (an immediate: one loop per shift 20..24, the shifts the compiler picks when the
// larger real input-to-output ratio is in [1/4, 2); others, and clamps narrower than int8,
// shift by register), the store.
template <int kShift, bool kClamp>
__attribute__((noinline)) void LinRow(const s8_add_params& pp, const int8_t* in1,
                                      const int8_t* in2, int8_t* out, int32_t n) {
  const int32_t alpha = pp.lin_alpha, beta = pp.lin_beta, gamma = pp.lin_gamma;
  const int32_t lo = pp.act_min, hi = pp.act_max, sh = pp.lin_shift;
  const auto one = [&](int32_t x1, int32_t x2) {
    const int32_t t = Mla(x2, beta, Mla(x1, alpha, gamma));
    int32_t y;
    if (kShift != 0) {
      __asm__("ssat %0, #8, %1, asr %2" : "=r"(y) : "r"(t), "i"(kShift));
    } else {
      y = __ssat(t >> sh, 8);
    }
    return kClamp ? fx::Clamp(y, lo, hi) : y;
  };
  int32_t i = 0;
  if (kShift != 0 && !kClamp && n >= 4) {
    // 4 elements per pass from two word loads, pointers post-incremented: 24 instructions.
    // The bytes go to the high bytes of int16 lanes by one AND each (even bytes shifted up
    // first): lanes x * 2^8, and SMLAW{B,T}(alpha * 2^8, lane, acc) = acc + floor(alpha *
    // 2^8 * x * 2^8 / 2^16) = acc + alpha * x exactly (|alpha * 2^8| < 2^30), so the sum is
    // the form's, two multiply-accumulates per element without a byte load each. The four
    // inputs of a pass are read before its four stores: in place is fine.
    int32_t passes = n >> 2;
    const int8_t* a = in1;
    const int8_t* b = in2;
    int8_t* o = out;
    const int32_t al8 = alpha * (1 << 8), be8 = beta * (1 << 8);
    const int32_t mask = static_cast<int32_t>(0xFF00FF00u);
    int32_t w1, w2, l1, l2, t;
#define TFD_LIN_LANE(ab, store)                  \
  "smlaw" ab " %[t], %[al], %[l1], %[g]\n\t"      \
  "smlaw" ab " %[t], %[be], %[l2], %[t]\n\t"      \
  "ssat %[t], #8, %[t], asr %[sh]\n\t"            \
  "strb %[t], " store "\n\t"
    __asm__ volatile(
        "1:\n\t"
        "ldr %[w1], [%[a]], #4\n\t"
        "ldr %[w2], [%[b]], #4\n\t"
        "and %[l1], %[m], %[w1]\n\t"  // [x1_3, x1_1] * 2^8
        "and %[l2], %[m], %[w2]\n\t"
        TFD_LIN_LANE("b", "[%[o], #1]") TFD_LIN_LANE("t", "[%[o], #3]")
        "and %[l1], %[m], %[w1], lsl #8\n\t"  // [x1_2, x1_0] * 2^8
        "and %[l2], %[m], %[w2], lsl #8\n\t"
        TFD_LIN_LANE("t", "[%[o], #2]") TFD_LIN_LANE("b", "[%[o]], #4")
        "subs %[n], %[n], #1\n\t"
        "bne 1b\n"
        : [a] "+r"(a), [b] "+r"(b), [o] "+r"(o), [n] "+r"(passes), [w1] "=&r"(w1),
          [w2] "=&r"(w2), [l1] "=&r"(l1), [l2] "=&r"(l2), [t] "=&r"(t)
        : [al] "r"(al8), [be] "r"(be8), [g] "r"(gamma), [m] "r"(mask), [sh] "i"(kShift)
        : "cc", "memory");
#undef TFD_LIN_LANE
    i = n & ~3;
  }
  for (; i + 2 <= n; i += 2) {  // in place: both pairs read before the stores
    const int32_t y0 = one(in1[i], in2[i]);
    const int32_t y1 = one(in1[i + 1], in2[i + 1]);
    out[i] = static_cast<int8_t>(y0);
    out[i + 1] = static_cast<int8_t>(y1);
  }
  if (i < n) out[i] = static_cast<int8_t>(one(in1[i], in2[i]));
}

template <bool kClamp>
void LinDispatch(const s8_add_params& p, const int8_t* in1, const int8_t* in2, int8_t* out,
                 int32_t n) {
  // A clamp narrower than int8 (rare: PT2E's ReLU outputs have zero point -128) shifts by
  // register: one loop instead of five.
  if (kClamp) return LinRow<0, true>(p, in1, in2, out, n);
  switch (p.lin_shift) {
    case 20: return LinRow<20, kClamp>(p, in1, in2, out, n);
    case 21: return LinRow<21, kClamp>(p, in1, in2, out, n);
    case 22: return LinRow<22, kClamp>(p, in1, in2, out, n);
    case 23: return LinRow<23, kClamp>(p, in1, in2, out, n);
    case 24: return LinRow<24, kClamp>(p, in1, in2, out, n);
    default: return LinRow<0, kClamp>(p, in1, in2, out, n);
  }
}

// True when the linear form ran the op (plain elementwise, or broadcast element by element).
inline bool TryLin(const s8_add_params& p, const int8_t* in1, const int8_t* in2, int8_t* out) {
  if (p.lin_shift == 0) return false;
  const bool clamp = p.act_min > -128 || p.act_max < 127;
  const auto [total, plain] = tinyforge::kernels::Extent(p.shape);
  if (plain) {
    (clamp ? LinDispatch<true> : LinDispatch<false>)(p, in1, in2, out, total);
    return true;
  }
  const int32_t alpha = p.lin_alpha, beta = p.lin_beta, gamma = p.lin_gamma, sh = p.lin_shift;
  tinyforge::kernels::ForEachBroadcast(p.shape, [&](int32_t i1, int32_t i2, int32_t o) {
    const int32_t t = Mla(in2[i2], beta, Mla(in1[i1], alpha, gamma));
    out[o] = static_cast<int8_t>(fx::Clamp(t >> sh, p.act_min, p.act_max));
  });
  return true;
}

}  // namespace

namespace {
template <bool kSub>
void Dispatch(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
              int8_t* output) {
  const s8_add_params& p = *params;
  if (TryLin(p, input1, input2, output)) return;
  // The doubled / quadrupled operands must fit: |(x + offset) << left_shift| < 2^28.
  if (p.left_shift > 20 || p.input1_shift > 0 || p.input2_shift > 0 || p.output_shift > 0) {
    (kSub ? s8_sub__ref : s8_add__ref)(params, input1, input2, output);
    return;
  }
  if (!kSub && TryHalf(p, input1, input2, output)) return;
  Consts k;
  k.left_shift = p.left_shift;
  k.c1 = fx::WrapShiftLeft(p.input1_offset, p.left_shift);
  k.c2 = fx::WrapShiftLeft(p.input2_offset, p.left_shift);
  k.out_off = p.output_offset;
  k.lo = p.act_min;
  k.hi = p.act_max;
  const bool single = p.rounding == TF_ROUNDING_SINGLE;
  const bool clamp = p.act_min > -128 || p.act_max < 127;
  if (single) {
    k.in1 = MakeStage<true>(p.input1_multiplier, p.input1_shift);
    k.in2 = MakeStage<true>(p.input2_multiplier, p.input2_shift);
    k.out = MakeStage<true>(p.output_multiplier, p.output_shift);
    if (clamp)
      Run<true, true, kSub>(p, k, input1, input2, output);
    else
      Run<true, false, kSub>(p, k, input1, input2, output);
  } else {
    k.in1 = MakeStage<false>(p.input1_multiplier, p.input1_shift);
    k.in2 = MakeStage<false>(p.input2_multiplier, p.input2_shift);
    k.out = MakeStage<false>(p.output_multiplier, p.output_shift);
    if (clamp)
      Run<false, true, kSub>(p, k, input1, input2, output);
    else
      Run<false, false, kSub>(p, k, input1, input2, output);
  }
}

}  // namespace

extern "C" void s8_add__dsp(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                            int8_t* output) {
  Dispatch<false>(params, input1, input2, output);
}

// SUB: the same stages with input 2's rescaled value subtracted (TFLite Micro's SUB).
extern "C" void s8_sub__dsp(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                            int8_t* output) {
  Dispatch<true>(params, input1, input2, output);
}

#endif  // TF_HAVE_DSP
