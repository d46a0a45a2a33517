// PRELU for Cortex-M55 (Helium/MVE). Bit-identical to s8_prelu__ref.
//
// The broadcast walk's rows (ForEachBroadcastRow) that read the input densely and the slopes
// densely (a slope per channel: NHWC's innermost dim) or as one value: 4 lanes at a time,
// x' = x + input_offset, both requantizations (x' and x' * a', kernels/common/mve_requant.h)
// and a select on x' >= 0. Single rounding with a shift s >= 0 (a positive side near 1,
// PyTorch's usual case) is floor((x * m * 2^s + 2^30) / 2^31) = VQRDMULH(x << s, m), exact
// while x << s fits: |x'| < 2^9 and |x' * a'| < 2^17 allow s up to 22 and 14; beyond,
// the general form (mve_requant.h's, a dozen instructions). A call whose rows are not dense
// (a broadcast input, strided slopes) runs __ref. Reads each vector before writing it: in
// place as __ref.
#include "kernels/common/isa.h"
#include "kernels/mul/mul.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/common/broadcast.h"
#include "kernels/common/mve_requant.h"

namespace {

namespace rq = tinyforge::mve_rq;

// Single rounding, shift >= 0 and small (see above): 2 instructions.
inline int32x4_t SingleLeft(int32x4_t x, const rq::ChannelQuant& q) {
  return vqrdmulhq_n_s32(vshlq_r_s32(x, q.left), q.mult);
}

// The call's constants, made once.
struct Consts {
  rq::ChannelQuant q1, q2;
  bool left1, left2;   // single rounding through SingleLeft
  int32_t io, ao, oo;  // the input, slope and output offsets
};

template <bool kSingle>
inline int32x4_t Rq(int32x4_t x, const rq::ChannelQuant& q, bool left) {
  return kSingle && left ? SingleLeft(x, q) : rq::RequantScalar<kSingle>(x, q);
}

// n outputs from input x (dense) and slopes alpha (dense: kPerLane, or alpha[0] for all).
// kCommon: single rounding, the positive side through SingleLeft and the negative side's
// shift <= -1 (PyTorch's usual PReLU: s_in / s_out near 1, s_in * s_slope / s_out small):
// both requantizations branch-free, 2 instructions each.
template <bool kSingle, bool kPerLane, bool kCommon>
[[gnu::always_inline]] inline void DenseRow(const Consts& kk, const int8_t* x,
                                            const int8_t* alpha, int8_t* y, int32_t n) {
  const int32_t io = kk.io, ao = kk.ao, oo = kk.oo;
  const int32x4_t lo = vdupq_n_s32(-128), hi = vdupq_n_s32(127);
  const int32x4_t one_slope = vdupq_n_s32(alpha[0] + ao);
  auto four = [&](int32x4_t xv, int32x4_t av) {
    xv = vaddq_n_s32(xv, io);
    int32x4_t pos, neg;
    if constexpr (kCommon) {
      pos = SingleLeft(xv, kk.q1);
      neg = vrshlq_n_s32(vqdmulhq_n_s32(vmulq_s32(xv, av), kk.q2.mult), kk.q2.right);
    } else {
      pos = Rq<kSingle>(xv, kk.q1, kk.left1);
      neg = Rq<kSingle>(vmulq_s32(xv, av), kk.q2, kk.left2);
    }
    const int32x4_t r = vpselq_s32(pos, neg, vcmpgeq_n_s32(xv, 0));
    return vminq_s32(vmaxq_s32(vaddq_n_s32(r, oo), lo), hi);
  };
  // Whole vectors unpredicated (a tail predicate beside the select's made GCC move VPR
  // through a register three times per vector), then the tail.
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const int32x4_t av = kPerLane ? vaddq_n_s32(vldrbq_s32(alpha + i), ao) : one_slope;
    vstrbq_s32(y + i, four(vldrbq_s32(x + i), av));
  }
  if (i < n) {
    const mve_pred16_t pr = vctp32q(static_cast<uint32_t>(n - i));
    const int32x4_t av = kPerLane ? vaddq_n_s32(vldrbq_z_s32(alpha + i, pr), ao) : one_slope;
    vstrbq_p_s32(y + i, four(vldrbq_z_s32(x + i, pr), av), pr);
  }
}

// rows rows of n (1 for the broadcast walk's calls), the slopes the same for each.
// (The constants are copied once, here: the stores through y could alias p and k as far as
// the compiler knows, and it reloaded every constant per vector: 45 instructions per 4
// outputs, measured, against 20.)
template <bool kSingle, bool kPerLane, bool kCommon>
[[gnu::noinline]] void Rows(const Consts& k, const int8_t* x, const int8_t* alpha, int8_t* y,
                            int32_t rows, int32_t n) {
  const Consts kk = k;
  for (int32_t r = 0; r < rows; ++r, x += n, y += n) {
    DenseRow<kSingle, kPerLane, kCommon>(kk, x, alpha, y, n);
  }
}

template <bool kSingle>
void Run(const s8_prelu_params& p, const int8_t* input, const int8_t* alpha, int8_t* output) {
  Consts k;
  k.q1 = rq::MakeQuant<kSingle>(p.output_multiplier_1, p.output_shift_1);
  k.q2 = rq::MakeQuant<kSingle>(p.output_multiplier_2, p.output_shift_2);
  k.left1 = p.output_shift_1 >= 0 && p.output_shift_1 <= 22;
  k.left2 = p.output_shift_2 >= 0 && p.output_shift_2 <= 14;
  k.io = p.input_offset, k.ao = p.alpha_offset, k.oo = p.output_offset;
  const int32_t s2 = p.shape.in2_strides[5];
  const bool common = kSingle && k.left1 && p.output_shift_2 <= -1;
  auto rows = [&](const int8_t* x, const int8_t* a, int8_t* y, int32_t r, int32_t n) {
    if (s2 == 1 && common) {
      Rows<kSingle, true, kSingle>(k, x, a, y, r, n);
    } else if (s2 == 1) {
      Rows<kSingle, true, false>(k, x, a, y, r, n);
    } else {
      Rows<kSingle, false, false>(k, x, a, y, r, n);
    }
  };
  int32_t n_rows, inner;
  if (tinyforge::kernels::RowsOfInner(p.shape, &n_rows, &inner)) {
    rows(input, alpha, output, n_rows, inner);
    return;
  }
  tinyforge::kernels::ForEachBroadcastRow(
      p.shape, [&](int32_t a, int32_t b, int32_t o, int32_t n) {
        rows(input + a, alpha + b, output + o, 1, n);
      });
}

}  // namespace

extern "C" void s8_prelu__mve(const s8_prelu_params* params, const int8_t* input,
                              const int8_t* alpha, int8_t* output) {
  // The row strides are the call's: rows that are not dense (a broadcast input, strided
  // slopes) make the whole call __ref's.
  const int32_t s1 = params->shape.in1_strides[5], s2 = params->shape.in2_strides[5];
  if (s1 != 1 || (s2 != 0 && s2 != 1)) {
    s8_prelu__ref(params, input, alpha, output);
    return;
  }
  if (params->rounding == TF_ROUNDING_SINGLE) {
    Run<true>(*params, input, alpha, output);
  } else {
    Run<false>(*params, input, alpha, output);
  }
}

#endif  // TF_HAVE_MVE
