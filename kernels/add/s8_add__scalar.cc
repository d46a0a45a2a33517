// ADD for cores without SIMD (Cortex-M0/M3; also built on the host), bit-identical to
// s8_add__ref in both rounding modes.
//
// The s8_add__dsp arithmetic with a 32x32->64 multiply (SMULL on the M3) in place of
// SMMUL/SMMULR: every requantization is the high word of a doubled operand times the
// multiplier,
//   double rounding: SRDHM(x, m) = floor((x * m + 2^30) / 2^31)
//                    = hi((2x) * m + 2^31), then the rounding shift by n = -shift, ties
//                    away from zero: (r + (r < 0 ? -1 : 0) + 2^(n-1)) >> n (mask and round
//                    0 when n == 0);
//   single rounding: floor((x * m + 2^(30 + n)) / 2^(31 + n)) = (hi((2x) * m) + 2^(n-1)) >> n
//                    for n >= 1, and (hi((4x) * m) + 1) >> 1 for n == 0.
// Operands stay below 2^29 in magnitude (|x + offset| <= 255, left shift <= 20, and each
// rescaled input is smaller than its operand), so doubling / quadrupling cannot overflow;
// other parameter sets (left shift > 20, a positive shift) run s8_add__ref.
// Outputs of at least kLutMinElements look each input's rescaled value up in a 256-entry
// table (each input stage depends on its byte only; built with the same arithmetic, 2 KiB of
// stack), leaving the output stage per element. Plain elementwise adds run as one row;
// broadcasts run their innermost dimension as rows with pointer strides, hoisting the
// rescaled value of an input that is constant along the row.
#include "kernels/add/add.h"

#include "kernels/add/add_stage.h"
#include "kernels/common/fixed_point.h"

#if defined(__ARM_FEATURE_SAT)
#include <arm_acle.h>
#endif

namespace {

namespace fx = tinyforge::fx;

constexpr int32_t kLutMinElements = 512;

using tinyforge::add_stage::MakeStage;
using tinyforge::add_stage::Stage;

template <bool kSingle>
inline int32_t Apply(int32_t x, const Stage& s) {
  if (kSingle) {
    const int64_t prod = static_cast<int64_t>(x * (1 << s.pre)) * s.mult;
    return (static_cast<int32_t>(prod >> 32) + s.round) >> s.n;
  }
  const int64_t prod = static_cast<int64_t>(x * 2) * s.mult + (int64_t{1} << 31);
  const int32_t r = static_cast<int32_t>(prod >> 32);
  return (r + ((r >> 31) & s.mask) + s.round) >> s.n;
}

struct Consts {
  Stage in1, in2, out;
  int32_t c1, c2;  // offset << left_shift
  int32_t left_shift;
  int32_t out_off, lo, hi;
  const int32_t* lut1;  // nullptr: compute the input stages
  const int32_t* lut2;
};

// The per-row constants as locals (no address taken): the byte stores through `out` cannot
// alias them, so they stay in registers across the row.
// kClamp: act_min / act_max narrower than the int8 range (else a saturation, SSAT on Arm).
template <bool kSingle, bool kLut, bool kClamp = true, bool kSub = false>
struct RowConsts {
  Stage in1, in2, out;
  int32_t c1, c2, left_shift, out_off, lo, hi;
  const int32_t* lut1;
  const int32_t* lut2;
  explicit RowConsts(const Consts& k)
      : in1(k.in1), in2(k.in2), out(k.out), c1(k.c1), c2(k.c2), left_shift(k.left_shift),
        out_off(k.out_off), lo(k.lo), hi(k.hi), lut1(k.lut1), lut2(k.lut2) {}
  int32_t Scale1(int8_t x) const {
    if (kLut) return lut1[static_cast<uint8_t>(x)];
    return Apply<kSingle>(c1 + x * (1 << left_shift), in1);
  }
  // Sub: input 2's rescaled value negated (the tables hold it negated already).
  int32_t Scale2(int8_t x) const {
    if (kLut) return lut2[static_cast<uint8_t>(x)];
    const int32_t b = Apply<kSingle>(c2 + x * (1 << left_shift), in2);
    return kSub ? -b : b;
  }
  int8_t Out(int32_t sum) const {
    int32_t y = Apply<kSingle>(sum, out) + out_off;
    if (!kClamp) {
#if defined(__ARM_FEATURE_SAT)
      return static_cast<int8_t>(__ssat(y, 8));
#else
      y = y < -128 ? -128 : y;
      return static_cast<int8_t>(y > 127 ? 127 : y);
#endif
    }
    y = y < lo ? lo : y;
    y = y > hi ? hi : y;
    return static_cast<int8_t>(y);
  }
};

// n outputs; input k advances by sk elements per output (0: constant along the row).
// Out of line: called from the plain and the broadcast paths (code size).
template <bool kSingle, bool kLut, bool kClamp, bool kSub>
__attribute__((noinline)) void Row(const Consts& consts, const int8_t* in1, int32_t s1, const int8_t* in2, int32_t s2,
         int8_t* out, int32_t n) {
  const RowConsts<kSingle, kLut, kClamp, kSub> k(consts);
  if (s2 == 0) {
    const int32_t b = k.Scale2(*in2);
    for (int32_t i = 0; i < n; ++i, in1 += s1) out[i] = k.Out(k.Scale1(*in1) + b);
  } else if (s1 == 0) {
    const int32_t a = k.Scale1(*in1);
    for (int32_t i = 0; i < n; ++i, in2 += s2) out[i] = k.Out(a + k.Scale2(*in2));
  } else if (s1 == 1 && s2 == 1) {
    int32_t i = 0;
    for (; i + 2 <= n; i += 2) {  // both loads before the stores: in-place adds stay exact
      const int8_t x0 = in1[i], x1 = in1[i + 1], z0 = in2[i], z1 = in2[i + 1];
      const int8_t y0 = k.Out(k.Scale1(x0) + k.Scale2(z0));
      const int8_t y1 = k.Out(k.Scale1(x1) + k.Scale2(z1));
      out[i] = y0;
      out[i + 1] = y1;
    }
    if (i < n) out[i] = k.Out(k.Scale1(in1[i]) + k.Scale2(in2[i]));
  } else {
    for (int32_t i = 0; i < n; ++i, in1 += s1, in2 += s2) {
      out[i] = k.Out(k.Scale1(*in1) + k.Scale2(*in2));
    }
  }
}

template <bool kSingle, bool kSub>
void RowAny(const Consts& k, const int8_t* in1, int32_t s1, const int8_t* in2, int32_t s2,
            int8_t* out, int32_t n) {
  if (k.lut1 == nullptr) {
    Row<kSingle, false, true, kSub>(k, in1, s1, in2, s2, out, n);
  } else if (k.lo > -128 || k.hi < 127) {
    Row<kSingle, true, true, kSub>(k, in1, s1, in2, s2, out, n);
  } else {
    Row<kSingle, true, false, kSub>(k, in1, s1, in2, s2, out, n);
  }
}

template <bool kSingle, bool kSub>
void Run(const s8_add_params& p, const Consts& consts, const int8_t* in1, const int8_t* in2,
         int8_t* out) {
  Consts k = consts;  // a local copy: the byte stores cannot alias it
  const s8_broadcast_shape& s = p.shape;
  const auto [total, plain] = tinyforge::kernels::Extent(s);
  int32_t lut1[256], lut2[256];
  if (total >= kLutMinElements) {
    const RowConsts<kSingle, false, true, kSub> rk(k);
    for (int32_t v = 0; v < 256; ++v) {
      const int8_t x = static_cast<int8_t>(v);
      lut1[v] = rk.Scale1(x);
      lut2[v] = rk.Scale2(x);
    }
    k.lut1 = lut1;
    k.lut2 = lut2;
  }
  if (plain) {
    RowAny<kSingle, kSub>(k, in1, 1, in2, 1, out, total);
    return;
  }
  const int32_t s1 = s.in1_strides[5], s2 = s.in2_strides[5];
  tinyforge::kernels::ForEachBroadcastRow(s, [&](int32_t a, int32_t b, int32_t o, int32_t n) {
    RowAny<kSingle, kSub>(k, in1 + a, s1, in2 + b, s2, out + o, n);
  });
}

}  // namespace

namespace {
template <bool kSub>
void Dispatch(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
              int8_t* output) {
  const s8_add_params& p = *params;
  // The doubled / quadrupled operands must fit: |(x + offset) << left_shift| < 2^28.
  if (p.left_shift > 20 || p.input1_shift > 0 || p.input2_shift > 0 || p.output_shift > 0) {
    (kSub ? s8_sub__ref : s8_add__ref)(params, input1, input2, output);
    return;
  }
  Consts k;
  k.left_shift = p.left_shift;
  k.c1 = fx::WrapShiftLeft(p.input1_offset, p.left_shift);
  k.c2 = fx::WrapShiftLeft(p.input2_offset, p.left_shift);
  k.out_off = p.output_offset;
  k.lo = p.act_min;
  k.hi = p.act_max;
  k.lut1 = nullptr;
  k.lut2 = nullptr;
  if (p.rounding == TF_ROUNDING_SINGLE) {
    k.in1 = MakeStage<true>(p.input1_multiplier, p.input1_shift);
    k.in2 = MakeStage<true>(p.input2_multiplier, p.input2_shift);
    k.out = MakeStage<true>(p.output_multiplier, p.output_shift);
    Run<true, kSub>(p, k, input1, input2, output);
  } else {
    k.in1 = MakeStage<false>(p.input1_multiplier, p.input1_shift);
    k.in2 = MakeStage<false>(p.input2_multiplier, p.input2_shift);
    k.out = MakeStage<false>(p.output_multiplier, p.output_shift);
    Run<false, kSub>(p, k, input1, input2, output);
  }
}
}  // namespace

namespace {

// The linear form the compiler proved exact (s8_add_params::lin_*, kernels/add/add_linear.h):
// two multiply-accumulates, a shift and the clamp per element. True when it ran the op.
bool TryLin(const s8_add_params& p, const int8_t* in1, const int8_t* in2, int8_t* out) {
  if (p.lin_shift == 0) return false;
  const int32_t alpha = p.lin_alpha, beta = p.lin_beta, gamma = p.lin_gamma, sh = p.lin_shift;
  const int32_t lo = p.act_min, hi = p.act_max;
  const auto one = [=](int32_t x1, int32_t x2) {
    return static_cast<int8_t>(fx::Clamp((x1 * alpha + x2 * beta + gamma) >> sh, lo, hi));
  };
  const auto [total, plain] = tinyforge::kernels::Extent(p.shape);
  if (plain) {
    for (int32_t i = 0; i < total; ++i) out[i] = one(in1[i], in2[i]);
    return true;
  }
  tinyforge::kernels::ForEachBroadcast(p.shape, [&](int32_t i1, int32_t i2, int32_t o) {
    out[o] = one(in1[i1], in2[i2]);
  });
  return true;
}

}  // namespace

extern "C" void s8_add__scalar(const s8_add_params* params, const int8_t* input1,
                               const int8_t* input2, int8_t* output) {
  if (TryLin(*params, input1, input2, output)) return;
  Dispatch<false>(params, input1, input2, output);
}

// SUB: the same stages with input 2's rescaled value subtracted (TFLite Micro's SUB).
extern "C" void s8_sub__scalar(const s8_add_params* params, const int8_t* input1,
                               const int8_t* input2, int8_t* output) {
  if (TryLin(*params, input1, input2, output)) return;
  Dispatch<true>(params, input1, input2, output);
}
