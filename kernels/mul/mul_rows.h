// MUL rows for the cores without Helium (s8_mul__scalar, s8_mul__dsp); internal header.
//
// Per element, with a = x1 + input1_offset, b = x2 + input2_offset, P = a * b, s the output
// shift and M the multiplier, every requantization the kernels take is one high-word
// multiply and a shift:
//   h = hi32((P << 15) * M) = floor(P * M / 2^17)             (SMMUL / SMULL; |P| < 2^16)
//   double rounding, s < 0 (n = -s): TFLite's RoundingDivideByPOT(SRDHM(P, M), n) is
//       floor((P*M + 2^30 + 2^31 * (2^(n-1) - [r < 0])) / 2^(31+n)),  r = SRDHM(P, M),
//     because floor(floor(u) + k) / 2^n) = floor((u + k) / 2^n) for integer k; the addend
//     is a multiple of 2^17, so with t = h + 2^13 (r < 0 <=> t < 0):
//       y = (h + 2^13 + 2^(13+n) - (t < 0 ? 2^14 : 0)) >> (14 + n)
//   double rounding, 0 <= s <= 13: SRDHM(P << s, M) = floor((P*M + 2^(30-s)) / 2^(31-s))
//       = (h + 2^(13-s)) >> (14 - s)
//   single rounding, s <= 13: floor((P*M + 2^(30-s)) / 2^(31-s)), the same form.
// Other parameter sets (s > 13, 14 - s + n > 31, an offset of -128 that would let |P|
// reach 2^16) run s8_mul__ref. Rows where one operand is constant and long enough look the
// result up in a 256-entry table built with the same arithmetic (one per row, or one for a
// whole tensor times a single value).
#ifndef TINYFORGE_KERNELS_MUL_MUL_ROWS_H_
#define TINYFORGE_KERNELS_MUL_MUL_ROWS_H_

#include <cstdint>

#if defined(__ARM_FEATURE_SAT)
#include <arm_acle.h>
#endif

#include "kernels/mul/mul.h"

namespace tinyforge::mul_rows {

struct Consts {
  int32_t o1, o2, mult, k, k0, mask, sh, out_off, lo, hi;
};

// False when the parameters need the reference arithmetic.
inline bool MakeConsts(const s8_mul_params& p, Consts* c) {
  const int32_t s = p.output_shift;
  if (s > 13 || p.input1_offset < -127 || p.input2_offset < -127) return false;
  const bool dbl = p.rounding != TF_ROUNDING_SINGLE;
  const int32_t n = s < 0 ? -s : 0;
  c->sh = 14 - (s > 0 ? s : 0) + n;
  if (c->sh > 31) return false;
  c->o1 = p.input1_offset;
  c->o2 = p.input2_offset;
  c->mult = p.output_multiplier;
  c->k0 = 1 << 13;
  if (dbl && n >= 1) {
    c->k = (1 << 13) + static_cast<int32_t>(int64_t{1} << (13 + n));
    c->mask = 1 << 14;
  } else {
    c->k = static_cast<int32_t>(int64_t{1} << (c->sh - 1));
    c->mask = 0;
  }
  c->out_off = p.output_offset;
  c->lo = p.act_min;
  c->hi = p.act_max;
  return true;
}

inline int32_t HighMul(int32_t x, int32_t m) {
  return static_cast<int32_t>((static_cast<int64_t>(x) * m) >> 32);
}

// a: x1 + o1; b15: (x2 + o2) << 15. kCorr: the double-rounding sign correction (mask != 0);
// kClamp: act_min / act_max narrower than int8 (else a saturation, SSAT on Arm).
template <bool kCorr = true, bool kClamp = true>
inline int8_t Elem(const Consts& c, int32_t a, int32_t b15) {
  const int32_t h = HighMul(a * b15, c.mult);
  int32_t y = h + c.k;
  if (kCorr) y -= ((h + c.k0) >> 31) & c.mask;
  y = (y >> c.sh) + c.out_off;
  if (!kClamp) {
#if defined(__ARM_FEATURE_SAT)
    return static_cast<int8_t>(__ssat(y, 8));
#else
    y = y < -128 ? -128 : y;
    return static_cast<int8_t>(y > 127 ? 127 : y);
#endif
  }
  y = y < c.lo ? c.lo : y;
  y = y > c.hi ? c.hi : y;
  return static_cast<int8_t>(y);
}

// Rows of n outputs at least this long with one constant operand use a table.
constexpr int32_t kLutMinRow = 384;

// n outputs; input k advances by sk elements per output (0: constant along the row).
// Out of line, the constants copied to locals: the byte stores cannot alias them, so they
// stay in registers.
template <bool kCorr, bool kClamp>
__attribute__((noinline)) void RowT(const Consts& cc, const int8_t* in1, int32_t s1,
                                    const int8_t* in2, int32_t s2, int8_t* out, int32_t n) {
  const Consts c = cc;
  if (s1 == 0 || s2 == 0) {
    // One operand constant: multiplication commutes, so call it b.
    const int8_t* x = s2 == 0 ? in1 : in2;
    const int32_t sx = s2 == 0 ? s1 : s2;
    const int32_t ox = s2 == 0 ? c.o1 : c.o2;
    const int32_t b15 = ((s2 == 0 ? *in2 + c.o2 : *in1 + c.o1)) * (1 << 15);
    if (n >= kLutMinRow) {
      int8_t t[256];
      for (int32_t u = 0; u < 256; ++u) {
        t[u] = Elem<kCorr, kClamp>(c, static_cast<int8_t>(u) + ox, b15);
      }
      for (int32_t i = 0; i < n; ++i, x += sx) out[i] = t[static_cast<uint8_t>(*x)];
      return;
    }
    for (int32_t i = 0; i < n; ++i, x += sx) out[i] = Elem<kCorr, kClamp>(c, *x + ox, b15);
    return;
  }
  if (s1 == 1 && s2 == 1) {
    const int32_t o2s = c.o2 * (1 << 15);
    for (int32_t i = 0; i < n; ++i) {
      out[i] = Elem<kCorr, kClamp>(c, in1[i] + c.o1, in2[i] * (1 << 15) + o2s);
    }
    return;
  }
  for (int32_t i = 0; i < n; ++i, in1 += s1, in2 += s2) {
    out[i] = Elem<kCorr, kClamp>(c, *in1 + c.o1, (*in2 + c.o2) * (1 << 15));
  }
}

inline void Row(const Consts& c, const int8_t* in1, int32_t s1, const int8_t* in2, int32_t s2,
                int8_t* out, int32_t n) {
  // Direct calls (a table of function pointers would be data the compiler may place in a
  // writable section).
  const bool clamp = c.lo > -128 || c.hi < 127;
  if (c.mask != 0) {
    if (clamp) {
      RowT<true, true>(c, in1, s1, in2, s2, out, n);
    } else {
      RowT<true, false>(c, in1, s1, in2, s2, out, n);
    }
  } else if (clamp) {
    RowT<false, true>(c, in1, s1, in2, s2, out, n);
  } else {
    RowT<false, false>(c, in1, s1, in2, s2, out, n);
  }
}

// The whole op: plain elementwise (one row), one input a single value (one row with a
// constant operand), or the innermost dimension as rows.
inline void Run(const s8_mul_params& p, const int8_t* in1, const int8_t* in2, int8_t* out) {
  Consts c;
  if (!MakeConsts(p, &c)) {
    s8_mul__ref(&p, in1, in2, out);
    return;
  }
  const s8_broadcast_shape& s = p.shape;
  bool plain = s.in1_strides[5] == 1 && s.in2_strides[5] == 1;
  bool scalar1 = true, scalar2 = true, dense1 = true, dense2 = true;
  int32_t total = 1;
  for (int d = 5; d >= 0; --d) {
    if (s.out_dims[d] > 1) {
      plain = plain && s.in1_strides[d] == total && s.in2_strides[d] == total;
      dense1 = dense1 && s.in1_strides[d] == total;
      dense2 = dense2 && s.in2_strides[d] == total;
      scalar1 = scalar1 && s.in1_strides[d] == 0;
      scalar2 = scalar2 && s.in2_strides[d] == 0;
    }
    total *= s.out_dims[d];
  }
  if (plain) {
    Row(c, in1, 1, in2, 1, out, total);
    return;
  }
  if (scalar2 && dense1) {
    Row(c, in1, 1, in2, 0, out, total);
    return;
  }
  if (scalar1 && dense2) {
    Row(c, in1, 0, in2, 1, out, total);
    return;
  }
  const int32_t s1 = s.in1_strides[5], s2 = s.in2_strides[5];
  tinyforge::kernels::ForEachBroadcastRow(s, [&](int32_t a, int32_t b, int32_t o, int32_t n) {
    Row(c, in1 + a, s1, in2 + b, s2, out + o, n);
  });
}

}  // namespace tinyforge::mul_rows

#endif  // TINYFORGE_KERNELS_MUL_MUL_ROWS_H_
