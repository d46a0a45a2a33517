// DEPTHWISE_CONV_2D for Cortex-M55 (Helium / MVE), plane path (s8_dwconv__mve.cc chooses it
// for kernels of up to 16 taps: any stride, dilation, padding, depth multiplier): per input
// channel and band of output rows, the input window is copied into a "plane" (scratch):
// zero-point padded, so there are no bounds checks and the input offset folds into a
// per-channel constant (bias + input_offset * sum(w)), and transposed so that every output's
// patch lies within 256 bytes. Then each output is ONE 16-lane byte gather of its patch
// (VLDRB with a vector of byte offsets) and ONE VMLADAVA with the channel's 16 packed weights
// (zero beyond the taps): 9 MACs of a 3x3 kernel in 2 instructions, no per-tap work. Four
// outputs along the plane's contiguous axis are requantized together in a vector and
// scatter-stored into NHWC. The plane's contiguous axis is y, or x for short images (out_h ==
// 1 when the runtime streams rows), whichever wastes fewer of the 4 lanes.
#include "kernels/common/isa.h"
#include "kernels/dwconv/dwconv.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/common/fixed_point.h"
#include "kernels/dwconv/mve_dwconv.h"

namespace tinyforge::dwconv_mve {
namespace {

// One output = one 16-lane byte gather of its patch from the plane (offsets: the taps, up
// to 16) and one VMLADAVA with the channel's packed weights (zero beyond the taps), added
// to init = bias + input_offset * sum(w) (the padding holds the zero point, so every tap
// counts). Four outputs along b are requantized together.
struct FastCtx {
  int32_t n_a_out, n_b_out;  // outputs along the plane axes a and b
  int32_t s_a, s_b;          // strides along a, b
  int32_t pad_a, pad_b;
  int32_t in_a, in_b;              // input extents
  int32_t in_step_a, in_step_b;    // input bytes per +1 along a / b
  int32_t out_step_a, out_step_b;  // output bytes per +1 along a / b
  int32_t n_a, pitch, band, chunk, plane_bytes, pixels;
  int32_t in_c, depth_multiplier, out_c;
  int32_t input_offset, out_off, act_min, act_max;
  const int32_t* bias;
  const int32_t* multiplier;
  const int32_t* shift;
  const int8_t* wpack;  // [out_c][16]
  int8_t* plane;
  int32_t* acc;  // pixel mode: [pixels][8] dot products of the chunk's channels
  int8_t zp;     // input zero point (the padding value)
};

// Fills the plane with input channel `ic`, band rows [ib0, ib0 + pitch) along b.
void FillPlane(const FastCtx& x, const int8_t* in, int32_t ib0, int32_t ic, uint16x8_t offs) {
  const int16x8_t zpv = vdupq_n_s16(x.zp);
  const int16x8_t lane = vreinterpretq_s16_u16(vidupq_n_u16(0, 1));
  const int32_t n_a = x.n_a, pad_a = x.pad_a, in_step_a = x.in_step_a, pitch = x.pitch;
  const int32_t a_lo = pad_a < n_a ? pad_a : n_a;
  const int32_t a_hi = fx::Max(a_lo, fx::Min(n_a, pad_a + x.in_a));
  int8_t* const plane = x.plane;
  for (int32_t a = 0; a < a_lo; ++a) {
    for (int32_t j = 0; j < pitch; j += 8) vstrbq_s16(plane + a * pitch + j, zpv);
  }
  for (int32_t a = a_hi; a < n_a; ++a) {
    for (int32_t j = 0; j < pitch; j += 8) vstrbq_s16(plane + a * pitch + j, zpv);
  }
  if (a_hi <= a_lo) return;
  const intptr_t col0 =
      reinterpret_cast<intptr_t>(in) + ic + static_cast<intptr_t>(a_lo - pad_a) * in_step_a;
  for (int32_t j = 0; j < pitch; j += 8) {
    // Rows ib0 + j .. + 7: which are inside the input.
    const int32_t lo = -(ib0 + j), hi = x.in_b - (ib0 + j);
    const intptr_t src0 = col0 + static_cast<intptr_t>(ib0 + j) * x.in_step_b;
    int8_t* dst = plane + a_lo * pitch + j;
    if (lo <= 0 && hi >= 8) {
      const int8_t* src = reinterpret_cast<const int8_t*>(src0);
      for (int32_t a = a_lo; a < a_hi; ++a, src += in_step_a, dst += pitch) {
        vstrbq_s16(dst, vldrbq_gather_offset_s16(src, offs));
      }
    } else if (lo >= 8 || hi <= 0) {
      for (int32_t a = a_lo; a < a_hi; ++a, dst += pitch) vstrbq_s16(dst, zpv);
    } else {
      // Rows outside the input are predicated off (never dereferenced).
      const mve_pred16_t p = vcmpltq_m_n_s16(lane, static_cast<int16_t>(hi),
                                             vcmpgeq_n_s16(lane, static_cast<int16_t>(lo)));
      const int8_t* src = reinterpret_cast<const int8_t*>(src0);
      for (int32_t a = a_lo; a < a_hi; ++a, src += in_step_a, dst += pitch) {
        vstrbq_s16(dst, vpselq_s16(vldrbq_gather_offset_z_s16(src, offs, p), zpv, p));
      }
    }
  }
}

// Chunk mode (small planes): planes of input channels [c0, c0 + nc), nc <= 8, at
// x.plane + k * plane_bytes. Padding was filled with the zero point once per call (and rows
// past the input's end once per band, ZeroRows); this copies the input pixels only: per
// pixel one 8-channel load and one scatter into the 8 planes.
void FillChunk(const FastCtx& x, const int8_t* in, int32_t ib0, int32_t c0, int32_t nc,
               uint16x8_t plane_offs) {
  const int32_t pitch = x.pitch, in_step_a = x.in_step_a, in_step_b = x.in_step_b;
  const int32_t a_lo = fx::Min(x.pad_a, x.n_a);
  const int32_t a_hi = fx::Max(a_lo, fx::Min(x.n_a, x.pad_a + x.in_a));
  const int32_t j_lo = fx::Max(0, -ib0);
  const int32_t j_hi = fx::Max(j_lo, fx::Min(pitch, x.in_b - ib0));
  const int32_t rows = j_hi - j_lo;
  if (rows == 0 || a_hi == a_lo) return;
  const int8_t* src_a = in + c0 + (a_lo - x.pad_a) * in_step_a + (ib0 + j_lo) * in_step_b;
  int8_t* dst_a = x.plane + a_lo * pitch + j_lo;
  if (nc == 8) {
    for (int32_t a = a_lo; a < a_hi; ++a, src_a += in_step_a, dst_a += pitch) {
      const int8_t* src = src_a;
      int8_t* dst = dst_a;
      for (int32_t j = 0; j < rows; ++j, src += in_step_b, ++dst) {
        vstrbq_scatter_offset_s16(dst, plane_offs, vldrbq_s16(src));
      }
    }
  } else {
    const mve_pred16_t pr = vctp16q(static_cast<uint32_t>(nc));
    for (int32_t a = a_lo; a < a_hi; ++a, src_a += in_step_a, dst_a += pitch) {
      const int8_t* src = src_a;
      int8_t* dst = dst_a;
      for (int32_t j = 0; j < rows; ++j, src += in_step_b, ++dst) {
        vstrbq_scatter_offset_p_s16(dst, plane_offs, vldrbq_z_s16(src, pr), pr);
      }
    }
  }
}

// Chunk mode: the zero point into rows [j0, pitch) of every column of the 8 planes.
void ZeroRows(const FastCtx& x, int32_t j0) {
  const int8x16_t zpv = vdupq_n_s8(x.zp);
  int8_t* const plane = x.plane;
  for (int32_t i = 0; i < 8 * x.n_a; ++i) {
    int8_t* col = plane + i * x.pitch;
    for (int32_t j = j0; j < x.pitch; j += 16) {
      vstrbq_p_s8(col + j, zpv, vctp8q(static_cast<uint32_t>(x.pitch - j)));
    }
  }
}

// Four scalars into one vector (two VMOVs). VMOV Qd[2], Qd[0], Rt, Rt2 moves Rt to lane 0 and
// Rt2 to lane 2 (the Armv8.1-M pseudocode writes Rt to the lower half).
inline int32x4_t Lanes(int32_t r0, int32_t r1, int32_t r2, int32_t r3) {
  int32x4_t v;
  __asm__("vmov %q0[2], %q0[0], %1, %3\n\tvmov %q0[3], %q0[1], %2, %4"
          : "=&w"(v)
          : "r"(r0), "r"(r1), "r"(r2), "r"(r3));
  return v;
}

// Constants of one output channel's pass over the plane.
struct ChannelPass {
  int8x16_t w;
  uint8x16_t taps;
  int32x4_t vinit, vmin, vmax;
  uint32x4_t out_offs;
  int32_t s_b, out_group, out_off;
};

// The column walk of one output channel, in memory for the asm loops below (which keep
// every register for the inner loop): offsets 0..28 are used by the asm.
struct ColumnWalk {
  const int8_t* col;   // 0: plane column of the next output column
  int8_t* out_col;     // 4: its first output
  int32_t columns;     // 8: output columns left (>= 1)
  int32_t groups;      // 12: full groups of 4 outputs per column (>= 1)
  int32_t col_step;    // 16: plane bytes per output column
  int32_t out_step_a;  // 20: output bytes per output column
  int32_t tail_p;      // 24: plane offset of the overlapping last group, or -1 (no tail)
  int32_t tail_o;      // 28: its output offset
};

// Every output of the channel, as groups of 4 along b (lane stride kSb, an immediate): per
// output one gather + VMLAV, then one vector requantization and a scatter store. A column
// whose output count is not a multiple of 4 first computes its last 4 outputs (overlapping
// the last full group: the same values are written twice). Per group of 4 outputs: 25
// instructions (double rounding, shift < 0) or 23 (single rounding, shift <= -1).
#include "kernels/dwconv/mve_channel.inc"

// One group of 4 (or fewer: `lanes`) outputs in C, any quantization.
template <bool kSingle>
inline void GroupC(const ChannelPass& c, const int8_t* p, int8_t* o, const ChannelQuant& q,
                   int32_t lanes) {
  const int32_t s_b = c.s_b;
  const int32_t r0 = vmladavq_s8(vldrbq_gather_offset_s8(p, c.taps), c.w);
  const int32_t r1 = vmladavq_s8(vldrbq_gather_offset_s8(p + s_b, c.taps), c.w);
  const int32_t r2 = vmladavq_s8(vldrbq_gather_offset_s8(p + 2 * s_b, c.taps), c.w);
  const int32_t r3 = vmladavq_s8(vldrbq_gather_offset_s8(p + 3 * s_b, c.taps), c.w);
  int32x4_t r = RequantScalar<kSingle>(vaddq_s32(Lanes(r0, r1, r2, r3), c.vinit), q);
  r = vaddq_n_s32(r, c.out_off);
  r = vminq_s32(vmaxq_s32(r, c.vmin), c.vmax);
  if (lanes >= 4) {
    vstrbq_scatter_offset_s32(o, c.out_offs, r);
  } else {
    vstrbq_scatter_offset_p_s32(o, c.out_offs, r, vctp32q(static_cast<uint32_t>(lanes)));
  }
}

// Output channel `oc` over the band: every plane column a, outputs b in groups of 4.
template <bool kSingle>
void Channel(const FastCtx& x, const int8_t* plane, int32_t oc, int32_t nb, int8_t* out_band,
             uint8x16_t taps, uint32x4_t out_offs) {
  ChannelPass c;
  c.w = vld1q_s8(x.wpack + oc * 16);
  c.taps = taps;
  c.vinit =
      vdupq_n_s32(fx::WrapAdd(x.bias != nullptr ? x.bias[oc] : 0, x.input_offset * vaddvq_s8(c.w)));
  c.vmin = vdupq_n_s32(x.act_min);
  c.vmax = vdupq_n_s32(x.act_max);
  c.out_offs = out_offs;
  c.s_b = x.s_b;
  c.out_group = 4 * x.out_step_b;
  c.out_off = x.out_off;
  const ChannelQuant q = MakeQuant<kSingle>(x.multiplier[oc], x.shift[oc]);
  const int32_t col_step = x.s_a * x.pitch, out_step_a = x.out_step_a;
  const int32_t n_a_out = x.n_a_out;
  const int32_t groups = nb / 4, tail = nb % 4;
  // The asm loops cover lane strides 1 and 2 with the common quantizations.
  const bool fast_quant = kSingle ? q.shift < 0 : (q.left == 0 && q.right < 0);
  const int mode = !fast_quant || groups == 0 ? 0 : (c.s_b == 1 ? 1 : (c.s_b == 2 ? 2 : 0));
  if (mode != 0) {
    ColumnWalk walk;
    walk.col = plane;
    walk.out_col = out_band + oc;
    walk.columns = n_a_out;
    walk.groups = groups;
    walk.col_step = col_step;
    walk.out_step_a = out_step_a;
    walk.tail_p = tail != 0 ? (nb - 4) * c.s_b : -1;
    walk.tail_o = (nb - 4) * x.out_step_b;
    if (mode == 1) {
      if (kSingle)
        ChannelSingleNeg<1>(c, &walk, q.mult, q.right);
      else
        ChannelDoubleNeg<1>(c, &walk, q.mult, q.right);
    } else {
      if (kSingle)
        ChannelSingleNeg<2>(c, &walk, q.mult, q.right);
      else
        ChannelDoubleNeg<2>(c, &walk, q.mult, q.right);
    }
    return;
  }
  const int8_t* col = plane;
  int8_t* out_col = out_band + oc;
  for (int32_t a = 0; a < n_a_out; ++a, col += col_step, out_col += out_step_a) {
    for (int32_t g = 0; g < groups; ++g) {
      GroupC<kSingle>(c, col + g * 4 * c.s_b, out_col + g * c.out_group, q, 4);
    }
    if (tail != 0) {
      GroupC<kSingle>(c, col + groups * 4 * c.s_b, out_col + groups * c.out_group, q, tail);
    }
  }
}

// Pixel mode (small images, depth multiplier 1): the dot products of the chunk's channels
// go to acc[pixel][k] (gather + VMLAV + store per output, no lane waste), then each group of 4
// channels is requantized per pixel with per-lane parameters and stored contiguously.
template <bool kSingle, bool kNonNeg>
void PixelChunk(const FastCtx& x, int32_t c0, int32_t nc, int8_t* out, uint8x16_t taps) {
  int32_t* const acc = x.acc;
  const int32_t n_a_out = x.n_a_out, n_b_out = x.n_b_out, s_b = x.s_b;
  const int32_t col_step = x.s_a * x.pitch;
  int32_t init[8];
  for (int32_t k = 0; k < nc; ++k) {
    const int32_t oc = c0 + k;
    const int8x16_t w = vld1q_s8(x.wpack + oc * 16);
    init[k] = fx::WrapAdd(x.bias != nullptr ? x.bias[oc] : 0, x.input_offset * vaddvq_s8(w));
    const int8_t* col = x.plane + k * x.plane_bytes;
    int32_t* dst = acc + k;
    for (int32_t a = 0; a < n_a_out; ++a, col += col_step) {
      // Per output: gather, VMLAV, store (post-increment), pointer step, LE.
      const int8_t* pp = col;
      int32_t r;
      int8x16_t g;
      __asm__ volatile(
          "dls lr, %[n]\n"
          "1:\n\t"
          "vldrb.u8 %q[g], [%[p], %q[taps]]\n\t"
          "add %[p], %[p], %[sb]\n\t"
          "vmlav.s8 %[r], %q[g], %q[w]\n\t"
          "str %[r], [%[d]], #32\n\t"
          "le lr, 1b"
          : [p] "+r"(pp), [d] "+r"(dst), [r] "=&Te"(r), [g] "=&w"(g)
          : [n] "r"(n_b_out), [sb] "r"(s_b), [taps] "w"(taps), [w] "w"(w)
          : "memory", "lr");
    }
  }
  const int32x4_t vmin = vdupq_n_s32(x.act_min), vmax = vdupq_n_s32(x.act_max);
  for (int32_t k0 = 0; k0 < nc; k0 += 4) {
    const mve_pred16_t pr = vctp32q(static_cast<uint32_t>(nc - k0));
    const int32x4_t vinit = vldrwq_z_s32(init + k0, pr);
    const int32x4_t mult = vldrwq_z_s32(x.multiplier + c0 + k0, pr);
    const int32x4_t shift = vldrwq_z_s32(x.shift + c0 + k0, pr);
    const int32_t* src = acc + k0;
    int8_t* out_col = out + c0 + k0;
    if (!kNonNeg && nc - k0 >= 4) {
      // Whole vectors, no left shifts: one asm loop per column.
      const int32x4_t right =
          kSingle ? vminq_s32(shift, vdupq_n_s32(-1)) : vminq_s32(shift, vdupq_n_s32(0));
      for (int32_t a = 0; a < n_a_out; ++a, out_col += x.out_step_a) {
        int8_t* o = out_col;
        int32x4_t v, t;
        if (kSingle) {
          __asm__ volatile(
              "dls lr, %[n]\n"
              "1:\n\t"
              "vldrw.u32 %q[v], [%[s]], #32\n\t"
              "vadd.i32 %q[v], %q[v], %q[init]\n\t"
              "vqdmulh.s32 %q[v], %q[v], %q[m]\n\t"
              "vrshl.s32 %q[v], %q[v], %q[rt]\n\t"
              "vadd.i32 %q[v], %q[v], %[off]\n\t"
              "vmax.s32 %q[v], %q[v], %q[lo]\n\t"
              "vmin.s32 %q[v], %q[v], %q[hi]\n\t"
              "vstrb.32 %q[v], [%[o]]\n\t"
              "add %[o], %[o], %[os]\n\t"
              "le lr, 1b"
              : [s] "+r"(src), [o] "+l"(o), [v] "=&w"(v), [t] "=&w"(t)
              : [n] "r"(n_b_out), [init] "w"(vinit), [m] "w"(mult), [rt] "w"(right),
                [off] "r"(x.out_off), [lo] "w"(vmin), [hi] "w"(vmax), [os] "r"(x.out_step_b)
              : "memory", "lr");
        } else {
          __asm__ volatile(
              "dls lr, %[n]\n"
              "1:\n\t"
              "vldrw.u32 %q[v], [%[s]], #32\n\t"
              "vadd.i32 %q[v], %q[v], %q[init]\n\t"
              "vqrdmulh.s32 %q[v], %q[v], %q[m]\n\t"
              "vand %q[t], %q[v], %q[rt]\n\t"
              "vshr.s32 %q[t], %q[t], #31\n\t"
              "vadd.i32 %q[v], %q[v], %q[t]\n\t"
              "vrshl.s32 %q[v], %q[v], %q[rt]\n\t"
              "vadd.i32 %q[v], %q[v], %[off]\n\t"
              "vmax.s32 %q[v], %q[v], %q[lo]\n\t"
              "vmin.s32 %q[v], %q[v], %q[hi]\n\t"
              "vstrb.32 %q[v], [%[o]]\n\t"
              "add %[o], %[o], %[os]\n\t"
              "le lr, 1b"
              : [s] "+r"(src), [o] "+l"(o), [v] "=&w"(v), [t] "=&w"(t)
              : [n] "r"(n_b_out), [init] "w"(vinit), [m] "w"(mult), [rt] "w"(right),
                [off] "r"(x.out_off), [lo] "w"(vmin), [hi] "w"(vmax), [os] "r"(x.out_step_b)
              : "memory", "lr");
        }
      }
      continue;
    }
    for (int32_t a = 0; a < n_a_out; ++a, out_col += x.out_step_a) {
      int8_t* o = out_col;
      for (int32_t b = 0; b < n_b_out; ++b, src += 8, o += x.out_step_b) {
        int32x4_t r =
            RequantVector<kSingle, kNonNeg>(vaddq_s32(vld1q_s32(src), vinit), mult, shift);
        r = vaddq_n_s32(r, x.out_off);
        r = vminq_s32(vmaxq_s32(r, vmin), vmax);
        vstrbq_p_s32(o, r, pr);
      }
    }
  }
}

template <bool kSingle, bool kNonNeg>
void RunPixels(const FastCtx& x, const int8_t* in, int8_t* out, uint8x16_t taps) {
  const uint16x8_t plane_offs =
      vmulq_n_u16(vidupq_n_u16(0, 1), static_cast<uint16_t>(x.plane_bytes));
  const int8x16_t zpv = vdupq_n_s8(x.zp);
  for (int32_t i = 0; i < 8 * x.plane_bytes; i += 16) vst1q_s8(x.plane + i, zpv);
  for (int32_t c0 = 0; c0 < x.in_c; c0 += 8) {
    const int32_t nc = fx::Min(8, x.in_c - c0);
    FillChunk(x, in, -x.pad_b, c0, nc, plane_offs);
    PixelChunk<kSingle, kNonNeg>(x, c0, nc, out, taps);
  }
}

template <bool kSingle>
void RunFast(const FastCtx& x, const int8_t* in, int8_t* out, uint8x16_t taps) {
  const uint32x4_t out_offs = vmulq_n_u32(vidupq_n_u32(0, 1), static_cast<uint32_t>(x.out_step_b));
  const uint16x8_t fill_offs = vmulq_n_u16(vidupq_n_u16(0, 1), static_cast<uint16_t>(x.in_step_b));
  const uint16x8_t plane_offs =
      vmulq_n_u16(vidupq_n_u16(0, 1), static_cast<uint16_t>(x.plane_bytes));
  const int32_t dm = x.depth_multiplier;
  if (x.chunk == 8) {
    const int8x16_t zpv = vdupq_n_s8(x.zp);
    for (int32_t i = 0; i < 8 * x.plane_bytes; i += 16) vst1q_s8(x.plane + i, zpv);
  }
  for (int32_t b0 = 0; b0 < x.n_b_out; b0 += x.band) {
    const int32_t nb = fx::Min(x.band, x.n_b_out - b0);
    const int32_t ib0 = b0 * x.s_b - x.pad_b;
    int8_t* out_band = out + b0 * x.out_step_b;
    if (x.chunk == 8) {
      // Rows past the input's end (earlier bands may have left pixels there).
      if (b0 > 0 && x.in_b - ib0 < x.pitch) ZeroRows(x, fx::Max(0, x.in_b - ib0));
      for (int32_t c0 = 0; c0 < x.in_c; c0 += 8) {
        const int32_t nc = fx::Min(8, x.in_c - c0);
        FillChunk(x, in, ib0, c0, nc, plane_offs);
        for (int32_t k = 0; k < nc; ++k) {
          const int8_t* plane = x.plane + k * x.plane_bytes;
          for (int32_t m = 0; m < dm; ++m) {
            Channel<kSingle>(x, plane, (c0 + k) * dm + m, nb, out_band, taps, out_offs);
          }
        }
      }
    } else {
      for (int32_t ic = 0; ic < x.in_c; ++ic) {
        FillPlane(x, in, ib0, ic, fill_offs);
        for (int32_t m = 0; m < dm; ++m) {
          Channel<kSingle>(x, x.plane, ic * dm + m, nb, out_band, taps, out_offs);
        }
      }
    }
  }
}

}  // namespace

bool s8_dwconv__mve__plane(const s8_dwconv_params& p, const int8_t* input, const int8_t* weights,
           const int32_t* bias, int8_t* output, void* scratch) {
  const s8_dwconv_mve_plan plan = s8_dwconv_mve_make_plan(p);
  if (!plan.fast || scratch == nullptr) return false;
  const int32_t C = p.out_c;
  int8_t* const wpack = static_cast<int8_t*>(scratch);
  const bool y = plan.b_is_y;
  FastCtx x;
  x.n_a_out = y ? p.out_w : p.out_h;
  x.n_b_out = y ? p.out_h : p.out_w;
  x.s_a = y ? p.stride_w : p.stride_h;
  x.s_b = y ? p.stride_h : p.stride_w;
  x.pad_a = y ? p.pad_left : p.pad_top;
  x.pad_b = y ? p.pad_top : p.pad_left;
  x.in_a = y ? p.in_w : p.in_h;
  x.in_b = y ? p.in_h : p.in_w;
  x.in_step_a = y ? p.in_c : p.in_w * p.in_c;
  x.in_step_b = y ? p.in_w * p.in_c : p.in_c;
  x.out_step_a = y ? p.out_c : p.out_w * p.out_c;
  x.out_step_b = y ? p.out_w * p.out_c : p.out_c;
  x.n_a = plan.n_a;
  x.pitch = plan.pitch;
  x.band = plan.band;
  x.chunk = plan.chunk;
  x.pixels = plan.pixels;
  x.plane_bytes = plan.n_a * plan.pitch;
  x.in_c = p.in_c;
  x.depth_multiplier = p.depth_multiplier;
  x.out_c = C;
  x.input_offset = p.input_offset;
  x.out_off = p.output_offset;
  x.act_min = p.act_min;
  x.act_max = p.act_max;
  x.bias = bias;
  x.multiplier = p.multiplier;
  x.shift = p.shift;
  x.wpack = wpack;
  x.plane = wpack + C * 16;
  x.acc = reinterpret_cast<int32_t*>(
      (reinterpret_cast<uintptr_t>(x.plane + plan.n_a * plan.pitch * plan.chunk) + 15) &
      ~uintptr_t{15});
  x.zp = static_cast<int8_t>(-p.input_offset);

  // Patch offsets (tap t = ka * k_b + kb) and the weights packed in the same order, 16 bytes
  // per output channel, zero beyond the taps: the 16 weights of tap t for channels
  // oc..oc+15 are scattered to wpack[(oc + i) * 16 + t].
  const int32_t k_a = y ? p.k_w : p.k_h, k_b = y ? p.k_h : p.k_w;
  const int32_t d_a = y ? p.dilation_w : p.dilation_h, d_b = y ? p.dilation_h : p.dilation_w;
  uint8_t tap_off[16];
  const uint8x16_t pack_offs = vmulq_n_u8(vidupq_n_u8(0, 1), 16);
  for (int32_t t = 0; t < 16; ++t) {
    const int32_t ka = t / k_b, kb = t % k_b;
    const bool real = t < k_a * k_b;
    tap_off[t] = static_cast<uint8_t>(real ? ka * d_a * x.pitch + kb * d_b : 0);
    const int32_t ky = y ? kb : ka, kx = y ? ka : kb;
    const int8_t* wt = weights + (ky * p.k_w + kx) * C;
    for (int32_t oc = 0; oc < C; oc += 16) {
      const mve_pred16_t pr = vctp8q(static_cast<uint32_t>(C - oc));
      const int8x16_t v = real ? vldrbq_z_s8(wt + oc, pr) : vdupq_n_s8(0);
      vstrbq_scatter_offset_p_s8(wpack + oc * 16 + t, pack_offs, v, pr);
    }
  }
  const uint8x16_t taps = vld1q_u8(tap_off);

  const int32_t in_batch = p.in_h * p.in_w * p.in_c;
  const int32_t out_batch = p.out_h * p.out_w * p.out_c;
  bool non_neg = false;
  if (x.pixels > 0) {
    for (int32_t c = 0; c < C; ++c) non_neg = non_neg || p.shift[c] >= 0;
  }
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* in = input + b * in_batch;
    int8_t* out = output + b * out_batch;
    if (x.pixels > 0) {
      if (p.rounding == TF_ROUNDING_SINGLE) {
        if (non_neg)
          RunPixels<true, true>(x, in, out, taps);
        else
          RunPixels<true, false>(x, in, out, taps);
      } else {
        if (non_neg)
          RunPixels<false, true>(x, in, out, taps);
        else
          RunPixels<false, false>(x, in, out, taps);
      }
    } else if (p.rounding == TF_ROUNDING_SINGLE) {
      RunFast<true>(x, in, out, taps);
    } else {
      RunFast<false>(x, in, out, taps);
    }
  }
  return true;
}


}  // namespace tinyforge::dwconv_mve

#endif  // TF_HAVE_MVE
