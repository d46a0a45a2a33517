// MUL for Cortex-M55 (Helium / MVE), bit-identical to s8_mul__ref in both rounding modes.
//
// Paths (each row loop specialised for the requantization mode):
//   * output shift in [-23, -1] (the usual case) with both inputs dense, or one input
//     per-channel (SE blocks, [.., P, C] * [C] in NHWC, either way round): 8 elements per
//     step in int16 lanes (Mul8 below: VMULLB / VMULLT, the offset folded into VQDMLASH,
//     VQMOVNB / VQMOVNT back to int16); 16 instructions per 8 elements (single rounding;
//     14 with the int8 range as the clamp, kSingleSat). SE gates (told apart from the
//     shape before the general classification, ChannelRows): C == 8 keeps the gates in a
//     register (13 per 8, kSingleSat); other multiples of 8 offset them once into an int16
//     buffer repeated to >= kGateRow per loop row, the row loop resetting the gate pointer
//     (Gate); other C row by row with a predicated step;
//   * one input a channel vector varying along one spatial dimension and repeating along
//     the other (coordinate attention): per position the gates as int16, then the rows;
//   * one input one value per row of at least 8 channels (a spatial attention map times the
//     features, [.., P, C] * [.., P, 1]): the row's value in 8 int16 lanes, then the int16
//     path's step over the row;
//   * one input a single value (x * c, a scalar broadcast): the 256 possible results in a
//     table (built 4 lanes at a time with the arithmetic below), then 16 elements per
//     byte-offset gather (VLDRB.U8 with an offset vector);
//   * a per-channel operand over at least kChannelTableRows rows with a shift the int16
//     path does not take: for each group of 8 channels a table of 8 x 256 results (2 KiB of
//     stack), then 8 elements per halfword-offset gather (x + 256 * lane);
//   * otherwise rows of 4 int32 lanes: P = (x1 + o1) * (x2 + o2) (one VMLA when an operand
//     is constant along the row), requantized as
//       double rounding: VQRDMULH(P << max(s, 0), M), then for s < 0 the rounding shift
//                        with ties away from zero (VRSHL rounds ties up: subtract 1 from
//                        negative values first);
//       single rounding: s <= -1: VRSHL(VQDMULH(P, M), s) (exact: 2^(30 - s) is a multiple
//                        of 2^31); s >= 0: VQRDMULH(P * 2^s, M) = (P * M * 2^s + 2^30) >> 31.
//     P << s must not wrap: |P| < 2^16, so shifts above 14 (and offsets of -128, |P| = 2^16)
//     run s8_mul__ref.
#include "kernels/common/isa.h"
#include "kernels/mul/mul.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

namespace {

// Requantization modes (the shift's sign and the rounding), a template parameter so each
// row loop is straight-line.
enum Mode { kDoubleRight, kDoubleLeft, kSingleRight, kSingleLeft, kSingleSat };

struct Lanes {
  int32_t o1, o2, mult, shift, left, out_off;
  int32x4_t vmin, vmax;
};

template <int kMode>
inline int32x4_t Requant(int32x4_t p, const Lanes& k) {
  int32x4_t r;
  if (kMode == kDoubleRight) {
    r = vqrdmulhq_n_s32(p, k.mult);
    r = vaddq_s32(r, vshrq_n_s32(r, 31));
    r = vrshlq_n_s32(r, k.shift);
  } else if (kMode == kSingleRight) {
    r = vrshlq_n_s32(vqdmulhq_n_s32(p, k.mult), k.shift);
  } else {
    r = vqrdmulhq_n_s32(vmulq_n_s32(p, k.left), k.mult);  // left = 2^shift
  }
  r = vaddq_n_s32(r, k.out_off);
  return vminq_s32(vmaxq_s32(r, k.vmin), k.vmax);
}

// Both inputs contiguous: n outputs.
template <int kMode>
__attribute__((noinline)) void RowBoth(const Lanes& kk, const int8_t* a, const int8_t* b,
                                       int8_t* out, int32_t n) {
  const Lanes k = kk;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const int32x4_t x = vaddq_n_s32(vldrbq_s32(a + i), k.o1);
    const int32x4_t y = vaddq_n_s32(vldrbq_s32(b + i), k.o2);
    vstrbq_s32(out + i, Requant<kMode>(vmulq_s32(x, y), k));
  }
  if (i < n) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n - i));
    const int32x4_t x = vaddq_n_s32(vldrbq_z_s32(a + i, p), k.o1);
    const int32x4_t y = vaddq_n_s32(vldrbq_z_s32(b + i, p), k.o2);
    vstrbq_p_s32(out + i, Requant<kMode>(vmulq_s32(x, y), k), p);
  }
}

// x (contiguous, offset ox) times a constant b (offset already added): P = x * b + ox * b,
// one VMLA.
template <int kMode>
__attribute__((noinline)) void RowConst(const Lanes& kk, const int8_t* x, int32_t ox, int32_t b,
                                        int8_t* out, int32_t n) {
  const Lanes k = kk;
  const int32x4_t base = vdupq_n_s32(ox * b);
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vstrbq_s32(out + i, Requant<kMode>(vmlaq_n_s32(base, vldrbq_s32(x + i), b), k));
  }
  if (i < n) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n - i));
    vstrbq_p_s32(out + i, Requant<kMode>(vmlaq_n_s32(base, vldrbq_z_s32(x + i, p), b), k), p);
  }
}

// n outputs; stride 0 or 1 per input (else `vector` is false: element by element).
template <int kMode>
void Row(const Lanes& k, const int8_t* in1, int32_t st1, const int8_t* in2, int32_t st2,
         int8_t* out, int32_t n) {
  if (st1 == 1 && st2 == 1) {
    RowBoth<kMode>(k, in1, in2, out, n);
  } else if (st2 == 0 && st1 == 1) {
    RowConst<kMode>(k, in1, k.o1, *in2 + k.o2, out, n);
  } else if (st1 == 0 && st2 == 1) {
    RowConst<kMode>(k, in2, k.o2, *in1 + k.o1, out, n);
  } else {
    for (int32_t i = 0; i < n; ++i, in1 += st1, in2 += st2) {
      RowConst<kMode>(k, in1, k.o1, *in2 + k.o2, out + i, 1);
    }
  }
}

// Right-shift modes with int16 operands (offsets added: |x + o| <= 255): 8 elements per
// step. VMULLB / VMULLT give the int32 products of the even and odd lanes; each half is
// requantized as in Requant with the output offset folded in:
//   single rounding: VRSHL(VQDMLASH(P, M, off << n), -n) = VRSHL(VQDMULH(P, M), -n) + off
//                    (adding off << n before a rounding shift by n adds exactly off);
//   double rounding: r = VQRDMULH(P, M), then VRSHL(r + (r >> 31) + (off << n), -n);
// then VQMOVNB / VQMOVNT narrow both halves back into int16 lanes in element order
// (saturating; the clamp bounds are int8) and VSTRB.16 stores them. No tail predication
// inside the loops (a partly active 32-bit lane would mix stale bytes): whole vectors, then
// one predicated step for the rest. off << n must fit: n <= 23 (Wide8Ok).
struct Wide {
  int32x4_t vmo;  // output multiplier in every lane
  int32_t k;      // output_offset << n
  int32_t shift;  // -n (< 0)
  int16x8_t vmin, vmax;
  int32_t k2;         // kSingleSat: output_offset << n + 2^(n - 1)
  int32_t sat_shift;  // kSingleSat: 24 - n
};

inline bool Wide8Ok(const s8_mul_params& p) { return p.output_shift <= -1 && p.output_shift >= -23; }

inline Wide MakeWide(const s8_mul_params& p) {
  Wide w;
  w.vmo = vdupq_n_s32(p.output_multiplier);
  w.k = p.output_offset * (1 << -p.output_shift);
  w.shift = p.output_shift;
  w.vmin = vdupq_n_s16(static_cast<int16_t>(p.act_min));
  w.vmax = vdupq_n_s16(static_cast<int16_t>(p.act_max));
  const int32_t n = -p.output_shift;
  w.k2 = n <= 22 ? p.output_offset * (1 << n) + (1 << (n - 1)) : 0;
  w.sat_shift = 24 - n;
  return w;
}

// kSingleSat applies: single rounding, the int8 range as the clamp, n <= 22.
inline bool SatOk(const s8_mul_params& p) {
  return p.rounding == TF_ROUNDING_SINGLE && p.act_min == -128 && p.act_max == 127 &&
         p.output_shift >= -22;
}

template <int kMode>
inline int32x4_t Requant4(int32x4_t q, const Wide& w) {
  if (kMode == kSingleRight) return vrshlq_n_s32(vqdmlashq_n_s32(q, w.vmo, w.k), w.shift);
  const int32x4_t r = vqrdmulhq_s32(q, w.vmo);
  return vrshlq_n_s32(vaddq_s32(vaddq_n_s32(r, w.k), vshrq_n_s32(r, 31)), w.shift);
}

// a * b (offsets added) requantized, 8 int16 lanes. kSingleSat rounds and saturates in
// two steps: t = VQDMLASH(P, M, off * 2^n + 2^(n - 1)) is the result times 2^n plus a
// fraction, sat32(t << (24 - n)) (VQSHL) has the int8-saturated result in its top byte,
// VSHRNB / VSHRNT #16 narrow the top halves in element order and VSHR #8 keeps that byte.
template <int kMode>
inline int16x8_t Mul8(int16x8_t a, int16x8_t b, const Wide& w) {
  if (kMode == kSingleSat) {
    int32x4_t lo = vqshlq_r_s32(vqdmlashq_n_s32(vmullbq_int_s16(a, b), w.vmo, w.k2), w.sat_shift);
    const int32x4_t hi =
        vqshlq_r_s32(vqdmlashq_n_s32(vmulltq_int_s16(a, b), w.vmo, w.k2), w.sat_shift);
    __asm__("vshrnb.i32 %q0, %q0, #16\n\tvshrnt.i32 %q0, %q1, #16" : "+w"(lo) : "w"(hi));
    return vshrq_n_s16(vreinterpretq_s16_s32(lo), 8);
  }
  int32x4_t lo = Requant4<kMode>(vmullbq_int_s16(a, b), w);
  const int32x4_t hi = Requant4<kMode>(vmulltq_int_s16(a, b), w);
  __asm__("vqmovnb.s32 %q0, %q0\n\tvqmovnt.s32 %q0, %q1" : "+w"(lo) : "w"(hi));
  return vminq_s16(vmaxq_s16(vreinterpretq_s16_s32(lo), w.vmin), w.vmax);
}

// Both inputs contiguous: n outputs, 8 per step (loads before the store: in place is exact).
template <int kMode>
__attribute__((noinline)) void Both8(const Wide& ww, const int8_t* a, int32_t oa, const int8_t* b,
                                     int32_t ob, int8_t* out, int32_t n) {
  const Wide w = ww;
  const int16_t o1 = static_cast<int16_t>(oa), o2 = static_cast<int16_t>(ob);
  for (int32_t k = n >> 3; k > 0; --k, a += 8, b += 8, out += 8) {
    vstrbq_s16(out, Mul8<kMode>(vaddq_n_s16(vldrbq_s16(a), o1), vaddq_n_s16(vldrbq_s16(b), o2),
                                w));
  }
  if ((n & 7) != 0) {
    const mve_pred16_t p = vctp16q(static_cast<uint32_t>(n & 7));
    vstrbq_p_s16(out, Mul8<kMode>(vaddq_n_s16(vldrbq_z_s16(a, p), o1),
                                  vaddq_n_s16(vldrbq_z_s16(b, p), o2), w), p);
  }
}

// rows x 8 outputs: x (offset ox) times one vector of 8 int16 gates g (offsets added),
// held in a register for the whole loop (no gate load: 13 instructions per 8 elements).
template <int kMode>
__attribute__((noinline)) void Gate8(const Wide& ww, const int8_t* x, int32_t ox,
                                     const int8_t* gw, int32_t ow, int8_t* out, int32_t rows) {
  const Wide w = ww;
  const int16_t o1 = static_cast<int16_t>(ox);
  const int16x8_t g = vaddq_n_s16(vldrbq_s16(gw), static_cast<int16_t>(ow));
  for (int32_t k = rows; k > 0; --k, x += 8, out += 8) {
    vstrbq_s16(out, Mul8<kMode>(vaddq_n_s16(vldrbq_s16(x), o1), g, w));
  }
}

// rows x (8 nv) outputs, dense: x (offset ox) times the int16 gates g[0 .. 8 nv) (offsets
// added), the gate pointer reset at each row (a few instructions a row).
template <int kMode>
__attribute__((noinline)) void GateRows(const Wide& ww, const int8_t* x, int32_t ox,
                                        const int16_t* g, int8_t* out, int32_t rows,
                                        int32_t nv) {
  const Wide w = ww;
  const int16_t o1 = static_cast<int16_t>(ox);
  const int32_t n = nv * 8;
  for (int32_t r = rows; r > 0; --r, x += n, out += n) {
    for (int32_t i = 0; i < n; i += 8) {
      vstrbq_s16(out + i, Mul8<kMode>(vaddq_n_s16(vldrbq_s16(x + i), o1), vldrhq_s16(g + i), w));
    }
  }
}

// rows x ch outputs of rows `stride` elements apart: x[r * stride + c] (offset ox) times the
// int16 gates g[c] (offsets added); a predicated step for the last ch % 8 of each row.
template <int kMode>
__attribute__((noinline)) void Rows8(const Wide& ww, const int8_t* x, int32_t ox,
                                     const int16_t* g, int8_t* out, int32_t rows, int32_t ch,
                                     int32_t stride) {
  const Wide w = ww;
  const int16_t o1 = static_cast<int16_t>(ox);
  const int32_t full = ch & ~7;
  for (int32_t r = 0; r < rows; ++r, x += stride, out += stride) {
    for (int32_t c = 0; c < full; c += 8) {
      vstrbq_s16(out + c, Mul8<kMode>(vaddq_n_s16(vldrbq_s16(x + c), o1), vldrhq_s16(g + c), w));
    }
    if (full < ch) {
      const mve_pred16_t p = vctp16q(static_cast<uint32_t>(ch - full));
      vstrbq_p_s16(out + full,
                   Mul8<kMode>(vaddq_n_s16(vldrbq_z_s16(x + full, p), o1),
                               vldrhq_z_s16(g + full, p), w), p);
    }
  }
}

constexpr int32_t kGateBuf = 512;  // int16 gates on the stack (1 KiB)
constexpr int32_t kGateRow = 256;  // gates repeated to at least this many per loop row

// rows x ch outputs: x (offset ox, dense) times gw[c] (offset ow): the SE gate multiply.
// ch 8: the gates stay in a register; other multiples of 8: the gates (offsets added) in an
// int16 buffer, repeated for k = ceil(kGateRow / ch) rows so each pass of the row loop covers
// at least kGateRow outputs; otherwise (or ch > kGateBuf, by channel chunks) row by row with
// a predicated step for the last ch % 8.
template <int kMode>
__attribute__((noinline)) void Gate(const s8_mul_params& p, const int8_t* x, int32_t ox,
                                    const int8_t* gw, int32_t ow, int8_t* out, int32_t rows,
                                    int32_t ch) {
  const Wide w = MakeWide(p);
  if (ch == 8) {
    Gate8<kMode>(w, x, ox, gw, ow, out, rows);
    return;
  }
  alignas(16) int16_t g[kGateBuf];
  const int16_t o = static_cast<int16_t>(ow);
  if (ch % 8 == 0 && ch <= kGateBuf) {
    int32_t k = (kGateRow + ch - 1) / ch;
    k = k < rows ? k : rows;
    int16_t* q = g;
    for (int32_t c = 0; c < ch; c += 8, q += 8) vst1q_s16(q, vaddq_n_s16(vldrbq_s16(gw + c), o));
    for (const int16_t* s = g; q < g + k * ch; q += 8, s += 8) vst1q_s16(q, vld1q_s16(s));
    const int32_t groups = rows / k;
    GateRows<kMode>(w, x, ox, g, out, groups, k * ch / 8);
    const int32_t done = groups * k;
    if (done < rows) {
      GateRows<kMode>(w, x + done * ch, ox, g, out + done * ch, 1, (rows - done) * ch / 8);
    }
    return;
  }
  for (int32_t c0 = 0; c0 < ch; c0 += kGateBuf) {
    const int32_t m = ch - c0 < kGateBuf ? ch - c0 : kGateBuf;
    for (int32_t j = 0; j < m; ++j) g[j] = static_cast<int16_t>(gw[c0 + j] + ow);
    Rows8<kMode>(w, x + c0, ox, g, out + c0, rows, m, ch);
  }
}

// True when input x (strides xs) is dense and input g (strides gs) one value per channel of
// the innermost dimension, as MakeBroadcastShape writes it (stride 0 wherever a dimension
// is 1); rows: the output's elements over its innermost extent. Out of line: one copy for
// the four requantization modes.
__attribute__((noinline)) bool ChannelRows(const s8_broadcast_shape& s, const int32_t* xs, const int32_t* gs,
                        int32_t* rows) {
  if (gs[5] != 1 || xs[5] != 1 || (gs[0] | gs[1] | gs[2] | gs[3] | gs[4]) != 0) return false;
  int32_t total = s.out_dims[5];
  for (int d = 4; d >= 0; --d) {
    if (s.out_dims[d] > 1 && xs[d] != total) return false;
    total *= s.out_dims[d];
  }
  *rows = total / s.out_dims[5];
  return true;
}

// rows x ch outputs: x (offset ox, dense) times g[r] (offset og), one value per row,
// broadcast to 8 int16 lanes once a row; a predicated step for the last ch % 8.
template <int kMode>
__attribute__((noinline)) void RowGates(const s8_mul_params& p, const int8_t* x, int32_t ox,
                                        const int8_t* g, int32_t og, int8_t* out, int32_t rows,
                                        int32_t ch) {
  const Wide w = MakeWide(p);
  const int16_t o1 = static_cast<int16_t>(ox);
  const int32_t full = ch & ~7;
  const mve_pred16_t tail = vctp16q(static_cast<uint32_t>(ch - full));
  for (int32_t r = 0; r < rows; ++r, x += ch, out += ch) {
    const int16x8_t gv = vdupq_n_s16(static_cast<int16_t>(g[r] + og));
    for (int32_t c = 0; c < full; c += 8) {
      vstrbq_s16(out + c, Mul8<kMode>(vaddq_n_s16(vldrbq_s16(x + c), o1), gv, w));
    }
    if (full < ch) {
      vstrbq_p_s16(out + full, Mul8<kMode>(vaddq_n_s16(vldrbq_z_s16(x + full, tail), o1), gv, w),
                   tail);
    }
  }
}

// VaryingGates (kernels/common/broadcast.h) of ch channels: per position the gates (offsets
// added) as int16 once, then Rows8 over the rows they apply to. Out of line: its 1 KiB
// buffer is on the stack only here.
template <int kMode>
__attribute__((noinline)) void StridedGateRows(const s8_mul_params& p,
                                               const tinyforge::kernels::VaryingGates& sh,
                                               int32_t ch, const int8_t* x, int32_t ox,
                                               const int8_t* gw, int32_t og, int8_t* out) {
  const Wide w = MakeWide(p);
  alignas(16) int16_t g[kGateBuf];
  for (int32_t v = 0; v < sh.vary; ++v) {
    for (int32_t c = 0; c < ch; ++c) g[c] = static_cast<int16_t>(gw[v * sh.vg + c] + og);
    Rows8<kMode>(w, x + v * sh.vx, ox, g, out + v * sh.vx, sh.rows, ch, sh.stride);
  }
}

// The bytes 0..255 as int8 (table index u holds the result for x = int8(u)).
struct Ramp {
  alignas(16) int8_t v[256];
  constexpr Ramp() : v() {
    for (int32_t u = 0; u < 256; ++u) v[u] = static_cast<int8_t>(u);
  }
};
constexpr Ramp kRamp{};

// x (n elements, contiguous, offset ox) times the constant b (offset added), by a table.
template <int kMode>
__attribute__((noinline)) void ScalarLut(const Lanes& k, const int8_t* x, int32_t ox, int32_t b, int8_t* out, int32_t n) {
  alignas(16) int8_t t[256];
  RowConst<kMode>(k, kRamp.v, ox, b, t, 256);
  for (int32_t i = 0; i < n; i += 16) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
    const uint8x16_t u = vldrbq_z_u8(reinterpret_cast<const uint8_t*>(x) + i, p);
    const uint8x16_t y = vldrbq_gather_offset_z_u8(reinterpret_cast<const uint8_t*>(t), u, p);
    vstrbq_p_u8(reinterpret_cast<uint8_t*>(out) + i, y, p);
  }
}

constexpr int32_t kScalarLutMin = 128;
// Outputs below which the attention-gate shapes are not looked for (a GRU's gate products
// run the generic rows without paying for the two classifications).
constexpr int32_t kGateMinElements = 256;
constexpr int32_t kChannelTableRows = 256;

// rows x ch outputs: x[r * ch + c] (offset ox) times w[c] (offset ow).
template <int kMode>
__attribute__((noinline)) void ChannelTables(const Lanes& k, const int8_t* x, int32_t ox, const int8_t* w, int32_t ow,
                   int8_t* out, int32_t rows, int32_t ch) {
  alignas(16) int8_t t[8 * 256];
  const uint16x8_t base = vmulq_n_u16(vidupq_n_u16(0, 1), 256);  // {0, 256, ..., 1792}
  for (int32_t c0 = 0; c0 < ch; c0 += 8) {
    const int32_t m = ch - c0 < 8 ? ch - c0 : 8;
    for (int32_t j = 0; j < m; ++j) RowConst<kMode>(k, kRamp.v, ox, w[c0 + j] + ow, t + 256 * j, 256);
    const mve_pred16_t p = vctp16q(static_cast<uint32_t>(m));
    const uint8_t* xp = reinterpret_cast<const uint8_t*>(x) + c0;
    uint8_t* op = reinterpret_cast<uint8_t*>(out) + c0;
    for (int32_t r = 0; r < rows; ++r, xp += ch, op += ch) {
      const uint16x8_t u = vaddq_u16(vldrbq_z_u16(xp, p), base);
      vstrbq_p_u16(op, vldrbq_gather_offset_z_u16(reinterpret_cast<const uint8_t*>(t), u, p), p);
    }
  }
}


// The attention gates on the int16 path; false for other shapes. Out of line, so that
// Run's own frame stays as small as the other shapes need.
template <int kMode>
__attribute__((noinline)) bool AttentionGates(const s8_mul_params& p, const int8_t* in1,
                                              const int8_t* in2, int8_t* out) {
  tinyforge::kernels::GateShape gs;
  if (!Wide8Ok(p) || !tinyforge::kernels::FindGateShape(p.shape, kGateBuf, 8, &gs)) return false;
  const int8_t* x = gs.g2 ? in1 : in2;
  const int8_t* g = gs.g2 ? in2 : in1;
  const int32_t ox = gs.g2 ? p.input1_offset : p.input2_offset;
  const int32_t og = gs.g2 ? p.input2_offset : p.input1_offset;
  const int32_t ch = p.shape.out_dims[5];
  const bool sat = kMode == kSingleRight && SatOk(p);
  if (gs.varying) {  // per position the gates as int16, then the rows they apply to
    sat ? StridedGateRows<kSingleSat>(p, gs.v, ch, x, ox, g, og, out)
        : StridedGateRows<kMode>(p, gs.v, ch, x, ox, g, og, out);
  } else {  // a spatial attention map times the features: one gate per row of channels
    sat ? RowGates<kSingleSat>(p, x, ox, g, og, out, gs.rows, ch)
        : RowGates<kMode>(p, x, ox, g, og, out, gs.rows, ch);
  }
  return true;
}

template <int kMode>
void Run(const s8_mul_params& p, const int8_t* in1, const int8_t* in2, int8_t* out) {
  const s8_broadcast_shape& s = p.shape;
  // Both inputs dense (the common case, told apart first: the classification below costs
  // about 100 instructions a call, which small tensors feel).
  const tinyforge::kernels::BroadcastExtent e = tinyforge::kernels::Extent(s);
  constexpr bool kWide = kMode == kSingleRight || kMode == kDoubleRight;
  if (kWide && !e.plain && s.in1_strides[5] == 1 && s.in2_strides[5] == 1 && Wide8Ok(p)) {
    // The SE gate multiply (as the compiler lays it out), told apart before the general
    // classification (about 140 of a 3x3x144 call's 2,860 instructions).
    int32_t rows;
    const bool g2 = ChannelRows(s, s.in1_strides, s.in2_strides, &rows);
    if (g2 || ChannelRows(s, s.in2_strides, s.in1_strides, &rows)) {
      const int8_t* x = g2 ? in1 : in2;
      const int8_t* g = g2 ? in2 : in1;
      const int32_t ox = g2 ? p.input1_offset : p.input2_offset;
      const int32_t og = g2 ? p.input2_offset : p.input1_offset;
      if (kMode == kSingleRight && SatOk(p)) {
        Gate<kSingleSat>(p, x, ox, g, og, out, rows, s.out_dims[5]);
      } else {
        Gate<kMode>(p, x, ox, g, og, out, rows, s.out_dims[5]);
      }
      return;
    }
  }
  if (kWide && !e.plain && e.elements >= kGateMinElements &&
      AttentionGates<kMode>(p, in1, in2, out)) {
    return;
  }
  Lanes k;
  k.o1 = p.input1_offset;
  k.o2 = p.input2_offset;
  k.mult = p.output_multiplier;
  k.shift = p.output_shift;
  k.left = p.output_shift > 0 ? 1 << p.output_shift : 1;
  k.out_off = p.output_offset;
  k.vmin = vdupq_n_s32(p.act_min);
  k.vmax = vdupq_n_s32(p.act_max);
  // Classify: each input dense, a single value, or per-channel (innermost dim only).
  bool dense1 = true, dense2 = true, scalar1 = true, scalar2 = true, chan1 = true, chan2 = true;
  int32_t total = 1;
  if (!e.plain) {
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
  } else {
    total = e.elements;
  }
  if (dense1 && dense2) {
    if (kMode == kSingleRight && Wide8Ok(p) && SatOk(p)) {
      Both8<kSingleSat>(MakeWide(p), in1, k.o1, in2, k.o2, out, total);
    } else if (kWide && Wide8Ok(p)) {
      Both8<kMode>(MakeWide(p), in1, k.o1, in2, k.o2, out, total);
    } else {
      RowBoth<kMode>(k, in1, in2, out, total);
    }
    return;
  }
  if ((scalar1 && dense2) || (scalar2 && dense1)) {
    const bool c_first = scalar1;
    const int8_t* x = c_first ? in2 : in1;
    const int32_t ox = c_first ? k.o2 : k.o1;
    const int32_t b = c_first ? *in1 + k.o1 : *in2 + k.o2;
    if (total >= kScalarLutMin) {
      ScalarLut<kMode>(k, x, ox, b, out, total);
    } else {
      RowConst<kMode>(k, x, ox, b, out, total);
    }
    return;
  }
  const int32_t inner = s.out_dims[5];
  const int32_t rows = total / inner;
  if (((chan2 && dense1) || (chan1 && dense2)) && rows >= kChannelTableRows) {
    if (chan2) {
      ChannelTables<kMode>(k, in1, k.o1, in2, k.o2, out, rows, inner);
    } else {
      ChannelTables<kMode>(k, in2, k.o2, in1, k.o1, out, rows, inner);
    }
    return;
  }
  const int32_t st1 = s.in1_strides[5], st2 = s.in2_strides[5];
  tinyforge::kernels::ForEachBroadcastRow(s, [&](int32_t a, int32_t b, int32_t o, int32_t n) {
    Row<kMode>(k, in1 + a, st1, in2 + b, st2, out + o, n);
  });
}

}  // namespace

extern "C" void s8_mul__mve(const s8_mul_params* params, const int8_t* input1,
                            const int8_t* input2, int8_t* output) {
  const s8_mul_params& p = *params;
  if (p.output_shift > 14 || p.input1_offset < -127 || p.input2_offset < -127) {
    s8_mul__ref(params, input1, input2, output);
    return;
  }
  const bool single = p.rounding == TF_ROUNDING_SINGLE;
  if (p.output_shift < 0) {
    if (single) {
      Run<kSingleRight>(p, input1, input2, output);
    } else {
      Run<kDoubleRight>(p, input1, input2, output);
    }
  } else if (single) {
    Run<kSingleLeft>(p, input1, input2, output);
  } else {
    Run<kDoubleLeft>(p, input1, input2, output);
  }
}

#endif  // TF_HAVE_MVE
