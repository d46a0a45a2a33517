// Portable int8 GEMM core shared by s8_conv__scalar and s8_fc__scalar (internal header): plain
// C++ for cores without SIMD (Cortex-M0/M3), also built on the host.
//
// Columns (a pixel's inputs, an im2col patch, an FC row) are widened once to int16 with the
// input offset added (so padded taps are 0 and no bias correction is needed); weight rows
// stay int8. Blocks of 2 columns x 2 output channels: per input 2 halfword + 2 byte loads and
// 4 multiply-accumulates (one MLA each on Armv7-M), loop unrolled by 4. Requantization per
// element in the forms that compile to SMULL/SMLAL, bit-exact with fx::Requantize.
#ifndef TINYFORGE_KERNELS_COMMON_GEMM_SCALAR_GEMM_H_
#define TINYFORGE_KERNELS_COMMON_GEMM_SCALAR_GEMM_H_

#include <cstdint>

#include "kernels/common/fixed_point.h"
#include "kernels/common/rq_mode.h"

namespace tinyforge::scalar {

inline void Widen(const int8_t* src, int32_t n, int32_t offset, int16_t* dst) {
  for (int32_t i = 0; i < n; ++i) dst[i] = static_cast<int16_t>(src[i] + offset);
}

// The requantization cases (kernels/common/rq_mode.h).
using rq::ChooseMode;
using rq::RqMode;
using rq::kRqDouble;
using rq::kRqDoubleNeg;
using rq::kRqDoubleNonPos;
using rq::kRqPerElement;
using rq::kRqSingle;
using rq::kRqSingleNeg;

struct ChanQ {
  int32_t m;
  int32_t a;  // double: left shift | single: 31 - shift | neg modes: right shift (>= 1)
  int32_t b;  // double: right shift | double neg: right shift - 1
  int64_t round;
};

template <int kMode>
inline ChanQ MakeChanQ(int32_t m, int32_t shift) {
  if constexpr (kMode == kRqSingle) {
    return {m, 31 - shift, 0, int64_t{1} << (30 - shift)};
  } else if constexpr (kMode == kRqSingleNeg) {
    return {m, -1 - shift, 0, int64_t{1} << (30 - shift)};
  } else if constexpr (kMode == kRqDoubleNeg) {
    return {m, -shift, -shift - 1, 0};
  } else {
    return {m, shift > 0 ? shift : 0, shift > 0 ? 0 : -shift, 0};
  }
}

template <int kMode>
inline int32_t Requant(int32_t x, const ChanQ& q) {
  if constexpr (kMode == kRqSingleNeg) {
    // (x*m + 2^(30-s)) >> (31-s), 31-s >= 32: the high word of the sum >> (-1-s).
    const int64_t r = q.round + static_cast<int64_t>(x) * q.m;
    return static_cast<int32_t>(r >> 32) >> q.a;
  } else if constexpr (kMode == kRqSingle) {
    const int64_t r = q.round + static_cast<int64_t>(x) * q.m;
    return static_cast<int32_t>(r >> q.a);
  } else if constexpr (kMode == kRqDoubleNeg) {
    // SRDHM (m in [0, 2^31): floor((x*m + 2^30) / 2^31), never saturates), then
    // RoundingDivideByPOT(h, r >= 1) = (t >> r) + bit r-1 of t with t = h - (h < 0).
    const int32_t h =
        static_cast<int32_t>(((int64_t{1} << 30) + static_cast<int64_t>(x) * q.m) >> 31);
    const int32_t t = h + (h >> 31);
    return (t >> q.a) + ((t >> q.b) & 1);
  } else {
    return fx::MultiplyByQuantizedMultiplier(x, q.m, q.a - q.b);
  }
}

struct OutQ {
  int32_t output_offset, act_min, act_max;
};

template <int kMode>
inline int8_t Finish(int32_t acc, const ChanQ& q, const OutQ& o) {
  int32_t v = fx::WrapAdd(Requant<kMode>(acc, q), o.output_offset);
  v = v < o.act_min ? o.act_min : v;
  v = v > o.act_max ? o.act_max : v;
  return static_cast<int8_t>(v);
}

// a00 += c0.w0, a01 += c0.w1, a10 += c1.w0, a11 += c1.w1 over k inputs.
inline void Dot2x2(const int16_t* c0, const int16_t* c1, const int8_t* w0, const int8_t* w1,
                   int32_t k, int32_t& r00, int32_t& r01, int32_t& r10, int32_t& r11) {
  int32_t a00 = r00, a01 = r01, a10 = r10, a11 = r11;
  int32_t j = 0;
  for (; j + 4 <= k; j += 4) {
    for (int u = 0; u < 4; ++u) {
      const int32_t x0 = c0[j + u], x1 = c1[j + u];
      const int32_t v0 = w0[j + u], v1 = w1[j + u];
      a00 += x0 * v0;
      a01 += x0 * v1;
      a10 += x1 * v0;
      a11 += x1 * v1;
    }
  }
  for (; j < k; ++j) {
    const int32_t x0 = c0[j], x1 = c1[j];
    const int32_t v0 = w0[j], v1 = w1[j];
    a00 += x0 * v0;
    a01 += x0 * v1;
    a10 += x1 * v0;
    a11 += x1 * v1;
  }
  r00 = a00;
  r01 = a01;
  r10 = a10;
  r11 = a11;
}

// a0 += c.w0, a1 += c.w1 over k inputs.
inline void Dot1x2(const int16_t* c, const int8_t* w0, const int8_t* w1, int32_t k, int32_t& r0,
                   int32_t& r1) {
  int32_t a0 = r0, a1 = r1;
  int32_t j = 0;
  for (; j + 4 <= k; j += 4) {
    for (int u = 0; u < 4; ++u) {
      const int32_t x = c[j + u];
      a0 += x * w0[j + u];
      a1 += x * w1[j + u];
    }
  }
  for (; j < k; ++j) {
    a0 += static_cast<int32_t>(c[j]) * w0[j];
    a1 += static_cast<int32_t>(c[j]) * w1[j];
  }
  r0 = a0;
  r1 = a1;
}

// Output channels [0, n_out) of np (1 or 2) widened columns c0, c1 of k inputs:
// out[i * n_out + c]. bias may be null. q_step: 1 per channel, 0 per tensor.
template <int kMode>
inline void Tile2(const int16_t* c0, const int16_t* c1, int32_t np, const int8_t* weights,
                  int32_t k, const int32_t* bias, const int32_t* mult, const int32_t* shift,
                  int32_t q_step, int32_t n_out, const OutQ& oq, int8_t* out) {
  int32_t oc = 0;
  for (; oc + 1 < n_out; oc += 2) {
    const int8_t* w0 = weights + oc * k;
    const int8_t* w1 = w0 + k;
    const int32_t b0 = bias != nullptr ? bias[oc] : 0;
    const int32_t b1 = bias != nullptr ? bias[oc + 1] : 0;
    const ChanQ q0 = MakeChanQ<kMode>(mult[oc * q_step], shift[oc * q_step]);
    const ChanQ q1 = MakeChanQ<kMode>(mult[(oc + 1) * q_step], shift[(oc + 1) * q_step]);
    if (np == 2) {
      int32_t a00 = b0, a01 = b1, a10 = b0, a11 = b1;
      Dot2x2(c0, c1, w0, w1, k, a00, a01, a10, a11);
      out[oc] = Finish<kMode>(a00, q0, oq);
      out[oc + 1] = Finish<kMode>(a01, q1, oq);
      out[n_out + oc] = Finish<kMode>(a10, q0, oq);
      out[n_out + oc + 1] = Finish<kMode>(a11, q1, oq);
    } else {
      int32_t a0 = b0, a1 = b1;
      Dot1x2(c0, w0, w1, k, a0, a1);
      out[oc] = Finish<kMode>(a0, q0, oq);
      out[oc + 1] = Finish<kMode>(a1, q1, oq);
    }
  }
  if (oc < n_out) {
    const int8_t* w0 = weights + oc * k;
    const int32_t b0 = bias != nullptr ? bias[oc] : 0;
    const ChanQ q0 = MakeChanQ<kMode>(mult[oc * q_step], shift[oc * q_step]);
    for (int32_t i = 0; i < np; ++i) {
      int32_t a0 = b0, dummy = 0;
      Dot1x2(i == 0 ? c0 : c1, w0, w0, k, a0, dummy);
      out[i * n_out + oc] = Finish<kMode>(a0, q0, oq);
    }
  }
}

}  // namespace tinyforge::scalar

#endif  // TINYFORGE_KERNELS_COMMON_GEMM_SCALAR_GEMM_H_
