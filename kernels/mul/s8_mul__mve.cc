// MUL for Cortex-M55 (Helium / MVE), bit-identical to s8_mul__ref in both rounding modes.
//
// Three paths:
//   * one input a single value (x * c, a scalar broadcast): the 256 possible results in a
//     table (built 4 lanes at a time with the arithmetic below), then 16 elements per
//     byte-offset gather (VLDRB.U8 with an offset vector);
//   * a per-channel operand (SE blocks, [.., P, C] * [C] in NHWC, either input) over at
//     least kChannelTableRows rows: for each group of 8 channels a table of 8 x 256 results
//     (2 KiB of stack), then 8 elements per halfword-offset gather (x + 256 * lane);
//   * otherwise rows of 4 int32 lanes: P = (x1 + o1) * (x2 + o2), requantized as
//       double rounding: VQRDMULH(P << max(s, 0), M), then for s < 0 the rounding shift
//                        with ties away from zero (VRSHL rounds ties up: subtract 1 from
//                        negative values first);
//       single rounding: s <= -1: VRSHL(VQDMULH(P, M), s) (exact: 2^(30 - s) is a multiple
//                        of 2^31); s >= 0: VQRDMULH(P << s, M) = (P * M * 2^s + 2^30) >> 31.
//     P << s must not wrap: |P| < 2^16, so shifts above 14 (and offsets of -128, |P| = 2^16)
//     run s8_mul__ref.
#include "kernels/common/isa.h"
#include "kernels/mul/mul.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

namespace {

struct Lanes {
  int32_t o1, o2, mult, shift, out_off;
  int32x4_t vmin, vmax;
};

template <bool kSingle>
inline int32x4_t MulLanes(const Lanes& k, int32x4_t x1, int32x4_t x2) {
  int32x4_t p = vmulq_s32(vaddq_n_s32(x1, k.o1), vaddq_n_s32(x2, k.o2));
  int32x4_t r;
  if (k.shift > 0) p = vshlq_s32(p, vdupq_n_s32(k.shift));
  if (kSingle) {
    r = k.shift >= 0 ? vqrdmulhq_n_s32(p, k.mult)
                     : vrshlq_n_s32(vqdmulhq_n_s32(p, k.mult), k.shift);
  } else {
    r = vqrdmulhq_n_s32(p, k.mult);
    if (k.shift < 0) {
      r = vaddq_s32(r, vshrq_n_s32(r, 31));
      r = vrshlq_n_s32(r, k.shift);
    }
  }
  r = vaddq_n_s32(r, k.out_off);
  return vminq_s32(vmaxq_s32(r, k.vmin), k.vmax);
}

// n outputs; stride 1 or 0 (constant) per input.
template <bool kSingle>
__attribute__((noinline)) void Row(const Lanes& k, const int8_t* in1, int32_t st1,
                                   const int8_t* in2, int32_t st2, int8_t* out, int32_t n) {
  const int32x4_t b1 = vdupq_n_s32(in1[0]), b2 = vdupq_n_s32(in2[0]);
  for (int32_t i = 0; i < n; i += 4) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n - i));
    const int32x4_t x1 = st1 == 0 ? b1 : vldrbq_z_s32(in1 + i, p);
    const int32x4_t x2 = st2 == 0 ? b2 : vldrbq_z_s32(in2 + i, p);
    vstrbq_p_s32(out + i, MulLanes<kSingle>(k, x1, x2), p);
  }
}

// The bytes 0..255 as int8 (table index u holds the result for x = int8(u)).
struct Ramp {
  int8_t v[256];
  Ramp() {
    for (int32_t u = 0; u < 256; ++u) v[u] = static_cast<int8_t>(u);
  }
};

// t[u] = x * c for x = int8(u); `c_first`: the constant is input 1.
template <bool kSingle>
void Table(const Lanes& k, const Ramp& ramp, const int8_t* c, bool c_first, int8_t* t) {
  if (c_first) {
    Row<kSingle>(k, c, 0, ramp.v, 1, t, 256);
  } else {
    Row<kSingle>(k, ramp.v, 1, c, 0, t, 256);
  }
}

// x (n elements, contiguous) times one value, through a table.
template <bool kSingle>
void ScalarLut(const Lanes& k, const int8_t* x, const int8_t* c, bool c_first, int8_t* out,
               int32_t n) {
  alignas(16) int8_t t[256];
  const Ramp ramp;
  Table<kSingle>(k, ramp, c, c_first, t);
  for (int32_t i = 0; i < n; i += 16) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
    const uint8x16_t u = vldrbq_z_u8(reinterpret_cast<const uint8_t*>(x) + i, p);
    const uint8x16_t y = vldrbq_gather_offset_z_u8(reinterpret_cast<const uint8_t*>(t), u, p);
    vstrbq_p_u8(reinterpret_cast<uint8_t*>(out) + i, y, p);
  }
}

constexpr int32_t kScalarLutMin = 128;
constexpr int32_t kChannelTableRows = 256;

// rows x ch outputs: x[r * ch + c] times w[c] (w is input 1 when `w_first`).
template <bool kSingle>
void ChannelTables(const Lanes& k, const int8_t* x, const int8_t* w, bool w_first, int8_t* out,
                   int32_t rows, int32_t ch) {
  alignas(16) int8_t t[8 * 256];
  const Ramp ramp;
  const uint16x8_t base = vmulq_n_u16(vidupq_n_u16(0, 1), 256);  // {0, 256, ..., 1792}
  for (int32_t c0 = 0; c0 < ch; c0 += 8) {
    const int32_t m = ch - c0 < 8 ? ch - c0 : 8;
    for (int32_t j = 0; j < m; ++j) Table<kSingle>(k, ramp, w + c0 + j, w_first, t + 256 * j);
    const mve_pred16_t p = vctp16q(static_cast<uint32_t>(m));
    const uint8_t* xp = reinterpret_cast<const uint8_t*>(x) + c0;
    uint8_t* op = reinterpret_cast<uint8_t*>(out) + c0;
    for (int32_t r = 0; r < rows; ++r, xp += ch, op += ch) {
      const uint16x8_t u = vaddq_u16(vldrbq_z_u16(xp, p), base);
      vstrbq_p_u16(op, vldrbq_gather_offset_z_u16(reinterpret_cast<const uint8_t*>(t), u, p), p);
    }
  }
}

template <bool kSingle>
void Run(const s8_mul_params& p, const int8_t* in1, const int8_t* in2, int8_t* out) {
  Lanes k;
  k.o1 = p.input1_offset;
  k.o2 = p.input2_offset;
  k.mult = p.output_multiplier;
  k.shift = p.output_shift;
  k.out_off = p.output_offset;
  k.vmin = vdupq_n_s32(p.act_min);
  k.vmax = vdupq_n_s32(p.act_max);
  const s8_broadcast_shape& s = p.shape;
  // Classify: each input dense, a single value, or per-channel (innermost dim only).
  bool dense1 = true, dense2 = true, scalar1 = true, scalar2 = true, chan1 = true, chan2 = true;
  int32_t total = 1;
  for (int d = 5; d >= 0; --d) {
    if (s.out_dims[d] > 1) {
      dense1 = dense1 && s.in1_strides[d] == total;
      dense2 = dense2 && s.in2_strides[d] == total;
      scalar1 = scalar1 && s.in1_strides[d] == 0;
      scalar2 = scalar2 && s.in2_strides[d] == 0;
      chan1 = chan1 && s.in1_strides[d] == (d == 5 ? 1 : 0);
      chan2 = chan2 && s.in2_strides[d] == (d == 5 ? 1 : 0);
    }
    total *= s.out_dims[d];
  }
  if (dense1 && dense2) {
    Row<kSingle>(k, in1, 1, in2, 1, out, total);
    return;
  }
  if ((scalar1 && dense2) || (scalar2 && dense1)) {
    const bool c_first = scalar1;
    const int8_t* x = c_first ? in2 : in1;
    const int8_t* c = c_first ? in1 : in2;
    if (total >= kScalarLutMin) {
      ScalarLut<kSingle>(k, x, c, c_first, out, total);
    } else if (c_first) {
      Row<kSingle>(k, c, 0, x, 1, out, total);
    } else {
      Row<kSingle>(k, x, 1, c, 0, out, total);
    }
    return;
  }
  const int32_t inner = s.out_dims[5];
  const int32_t rows = total / inner;
  if (((chan2 && dense1) || (chan1 && dense2)) && rows >= kChannelTableRows) {
    const bool w_first = chan1;
    ChannelTables<kSingle>(k, w_first ? in2 : in1, w_first ? in1 : in2, w_first, out, rows,
                           inner);
    return;
  }
  const int32_t st1 = s.in1_strides[5], st2 = s.in2_strides[5];
  const bool vector_inner = (st1 == 0 || st1 == 1) && (st2 == 0 || st2 == 1);
  int32_t o = 0;
  for (int32_t d0 = 0; d0 < s.out_dims[0]; ++d0) {
    for (int32_t d1 = 0; d1 < s.out_dims[1]; ++d1) {
      for (int32_t d2 = 0; d2 < s.out_dims[2]; ++d2) {
        for (int32_t d3 = 0; d3 < s.out_dims[3]; ++d3) {
          for (int32_t d4 = 0; d4 < s.out_dims[4]; ++d4) {
            const int32_t a = d0 * s.in1_strides[0] + d1 * s.in1_strides[1] +
                              d2 * s.in1_strides[2] + d3 * s.in1_strides[3] +
                              d4 * s.in1_strides[4];
            const int32_t b = d0 * s.in2_strides[0] + d1 * s.in2_strides[1] +
                              d2 * s.in2_strides[2] + d3 * s.in2_strides[3] +
                              d4 * s.in2_strides[4];
            if (vector_inner) {
              Row<kSingle>(k, in1 + a, st1, in2 + b, st2, out + o, inner);
              o += inner;
              continue;
            }
            for (int32_t d5 = 0; d5 < inner; ++d5, ++o) {
              Row<kSingle>(k, in1 + a + d5 * st1, 0, in2 + b + d5 * st2, 0, out + o, 1);
            }
          }
        }
      }
    }
  }
}

}  // namespace

extern "C" void s8_mul__mve(const s8_mul_params* params, const int8_t* input1,
                            const int8_t* input2, int8_t* output) {
  const s8_mul_params& p = *params;
  if (p.output_shift > 14 || p.input1_offset < -127 || p.input2_offset < -127) {
    s8_mul__ref(params, input1, input2, output);
    return;
  }
  if (p.rounding == TF_ROUNDING_SINGLE) {
    Run<true>(p, input1, input2, output);
  } else {
    Run<false>(p, input1, input2, output);
  }
}

#endif  // TF_HAVE_MVE
