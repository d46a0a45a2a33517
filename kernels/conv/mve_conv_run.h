// Internal header of s8_conv__mve (Helium): the driver that its requantization paths share
// (docs/decisions.md 45). Each path is s8_conv__mve_<mode>.cc, one extern "C" function
// s8_conv__mve__<mode> with the kernel's signature, instantiating Conv<kMode> below, so a
// firmware links only the modes its program's convolutions take (kernels/common/paths.h).
// How it works (register blocking, K paths, scratch): s8_conv__mve.cc.
// Only included inside `#if TF_HAVE_MVE` (kernels/common/isa.h).
#ifndef TINYFORGE_KERNELS_CONV_MVE_CONV_RUN_H_
#define TINYFORGE_KERNELS_CONV_MVE_CONV_RUN_H_

#include <cstddef>

#include "kernels/common/gemm/mve_gemm.h"
#include "kernels/common/strided_copy_mve.h"
#include "kernels/conv/conv.h"
#include "kernels/conv/mve_conv.h"

namespace {

namespace fx = tinyforge::fx;
namespace mve = tinyforge::mve;
using tinyforge::conv_mve::Tile23Args;

struct Geometry {
  const s8_conv_params* p;
  const int8_t* input;
  int32_t k;          // column length
  bool direct;        // columns are input pixels
  int8_t zero_point;  // value of a padded tap
};

// Copies n >= 1 bytes (strided::CopyMve) / fills n >= 1 bytes with v (tail-predicated
// loops); each returns dst + n.
inline int8_t* CopyRun(int8_t* dst, const int8_t* src, int32_t n) {
  tinyforge::strided::CopyMve(src, dst, n);
  return dst + n;
}
inline int8_t* FillRun(int8_t* dst, int8_t v, int32_t n) {
  int8_t* const end = dst + n;
  __asm__ volatile(
      "vdup.8 q0, %[v]\n\t"
      "dlstp.8 lr, %[n]\n"
      "1:\n\t"
      "vstrb.8 q0, [%[d]], #16\n\t"
      "letp lr, 1b\n"
      : [d] "+r"(dst)
      : [n] "r"(n), [v] "r"(static_cast<int32_t>(v))
      : "q0", "lr", "memory");
  return end;
}

// Copies n >= 1 rows of 1 <= m <= 16 bytes, source rows `stride` bytes apart, destination rows
// `dst_stride` bytes apart (predicated vector load/store per row).
inline void CopyRows(int8_t* dst, const int8_t* src, int32_t m, int32_t stride,
                     int32_t dst_stride, int32_t n) {
  __asm__ volatile(
      "vctp.8 %[m]\n\t"
      "dls lr, %[n]\n"
      "1:\n\t"
      "vpstt\n\t"
      "vldrbt.8 q0, [%[s]]\n\t"
      "vstrbt.8 q0, [%[d]]\n\t"
      "add %[s], %[s], %[st]\n\t"
      "add %[d], %[d], %[ds]\n\t"
      "le lr, 1b\n"
      : [s] "+r"(src), [d] "+r"(dst)
      : [m] "r"(m), [st] "r"(stride), [ds] "r"(dst_stride), [n] "r"(n)
      : "q0", "lr", "memory");
}

// n >= 1 patches of `rows` >= 1 rows of 1 <= m <= 16 bytes each, written contiguously from dst;
// patch j's rows start at src + j * step, `stride` bytes apart.
inline void CopyPatches(int8_t* dst, const int8_t* src, int32_t m, int32_t stride, int32_t rows,
                        int32_t step, int32_t n) {
  const int8_t* t;
  __asm__ volatile(
      "vctp.8 %[m]\n"
      "1:\n\t"
      "mov %[t], %[s]\n\t"
      "dls lr, %[r]\n"
      "2:\n\t"
      "vpstt\n\t"
      "vldrbt.8 q0, [%[t]]\n\t"
      "vstrbt.8 q0, [%[d]]\n\t"
      "add %[t], %[t], %[st]\n\t"
      "add %[d], %[d], %[m]\n\t"
      "le lr, 2b\n\t"
      "add %[s], %[s], %[sp]\n\t"
      "subs %[n], %[n], #1\n\t"
      "bne 1b\n"
      : [s] "+r"(src), [d] "+r"(dst), [n] "+r"(n), [t] "=&r"(t)
      : [m] "r"(m), [st] "r"(stride), [r] "r"(rows), [sp] "r"(step)
      : "q0", "lr", "cc", "memory");
}

// n >= 1 patches of `rows` >= 1 rows of m bytes each (m a multiple of 16), written
// contiguously from dst; patch j's rows start at src + j * step, `stride` bytes apart.
inline void CopyPatchesWide(int8_t* dst, const int8_t* src, int32_t m, int32_t stride,
                            int32_t rows, int32_t step, int32_t n) {
  const int8_t* t;
  int32_t r;
  const int32_t gap = stride - m;
  __asm__ volatile(
      "1:\n\t"
      "mov %[t], %[s]\n\t"
      "mov %[r], %[rows]\n"
      "2:\n\t"
      "dlstp.8 lr, %[m]\n"
      "3:\n\t"
      "vldrb.8 q0, [%[t]], #16\n\t"
      "vstrb.8 q0, [%[d]], #16\n\t"
      "letp lr, 3b\n\t"
      "add %[t], %[t], %[gap]\n\t"
      "subs %[r], %[r], #1\n\t"
      "bne 2b\n\t"
      "add %[s], %[s], %[sp]\n\t"
      "subs %[n], %[n], #1\n\t"
      "bne 1b\n"
      : [s] "+r"(src), [d] "+r"(dst), [n] "+r"(n), [t] "=&r"(t), [r] "=&r"(r)
      : [m] "r"(m), [gap] "r"(gap), [rows] "r"(rows), [sp] "r"(step)
      : "q0", "lr", "cc", "memory");
}

// CopyPatchesWide for 3 kernel rows: the rows' chunks interleaved in one loop (no per-row
// loop set-up).
inline void CopyPatchesWide3(int8_t* dst, const int8_t* src, int32_t m, int32_t stride,
                             int32_t step, int32_t n) {
  const int8_t *t0, *t1, *t2;
  int8_t *d1, *d2;
  __asm__ volatile(
      "1:\n\t"
      "mov %[t0], %[s]\n\t"
      "add %[t1], %[s], %[st]\n\t"
      "add %[t2], %[t1], %[st]\n\t"
      "add %[d1], %[d], %[m]\n\t"
      "add %[d2], %[d1], %[m]\n\t"
      "dlstp.8 lr, %[m]\n"
      "2:\n\t"
      "vldrb.8 q0, [%[t0]], #16\n\t"
      "vstrb.8 q0, [%[d]], #16\n\t"
      "vldrb.8 q0, [%[t1]], #16\n\t"
      "vstrb.8 q0, [%[d1]], #16\n\t"
      "vldrb.8 q0, [%[t2]], #16\n\t"
      "vstrb.8 q0, [%[d2]], #16\n\t"
      "letp lr, 2b\n\t"
      "mov %[d], %[d2]\n\t"
      "add %[s], %[s], %[sp]\n\t"
      "subs %[n], %[n], #1\n\t"
      "bne 1b\n"
      : [s] "+r"(src), [d] "+r"(dst), [n] "+r"(n), [t0] "=&r"(t0), [t1] "=&r"(t1),
        [t2] "=&r"(t2), [d1] "=&r"(d1), [d2] "=&r"(d2)
      : [m] "r"(m), [st] "r"(stride), [sp] "r"(step)
      : "q0", "lr", "cc", "memory");
}

// Tile23's per-pair table: {m0, m1, m0, m1}, {s0, s1, s0, s1}, {b0, b1, b0, b1} (48 bytes per
// pair, n_out even).
inline void PairTable(const int32_t* bias, const int32_t* mult, const int32_t* shift,
                      int32_t n_out, int32_t* table) {
  for (int32_t c = 0; c < n_out; c += 2, table += 12) {
    const int32_t b0 = bias[c], b1 = bias[c + 1];
    table[0] = table[2] = mult[c];
    table[1] = table[3] = mult[c + 1];
    table[4] = table[6] = shift[c];
    table[5] = table[7] = shift[c + 1];
    table[8] = table[10] = b0;
    table[9] = table[11] = b1;
  }
}

// Every channel pair x the pixel hexads (and a last block of 3) of one tile through
// Tile23_*; returns the pixels done (a multiple of 3; 0 below 6 pixels). Needs an even n_out and K > 16.
template <int kMode>
int32_t Tile23(const int8_t* const* cols, int32_t np, const int8_t* weights, int32_t k,
               const int32_t* table, int32_t n_out, int32_t output_offset, int32_t act_min,
               int32_t act_max, int8_t* out) {
  const int32_t hexads = np / 6;
  if (hexads == 0) return 0;  // (3..5 pixels: the 2 x 2 blocks)
  const int32_t tri = np - 6 * hexads >= 3 ? 1 : 0;
  Tile23Args a;
  const uint32_t no = static_cast<uint32_t>(n_out);
  a.oo[0] = 0;
  a.oo[1] = 1;
  a.oo[2] = no;
  a.oo[3] = no + 1;
  for (int l = 0; l < 4; ++l) {
    a.mn[l] = act_min;
    a.mx[l] = act_max;
  }
  a.c0 = cols;
  a.dst0 = out;
  a.n0 = hexads;
  a.w0 = weights;
  a.w1 = weights + k;
  a.k16 = k - 16;
  a.kx3 = k / 48 - 1;
  a.k2 = 2 * k;
  a.off = output_offset;
  a.n2 = 2 * n_out;
  a.table = table;
  a.pairs = n_out >> 1;
  a.tri = tri;
  // A linked-on-demand path (kernels/common/paths.h): when this firmware does not link the
  // routine, the 2 x 2 blocks do every pixel (same result, slower).
  void (*const fn)(Tile23Args*) =
      tinyforge::conv_mve::Tile23Routine(kMode == mve::kRqSingleNeg, k);
  if (fn == nullptr) return 0;
  fn(&a);
  return 6 * hexads + 3 * tri;
}

// Output pixel (b, oy, ox) -> its column: a pointer into the input (direct) or the patch
// built in `slot` (K bytes, OHWI tap order, taps outside the input = zero point).
inline const int8_t* Column(const Geometry& g, int32_t b, int32_t oy, int32_t ox, int8_t* slot) {
  const s8_conv_params& p = *g.p;
  const int8_t* in_b = g.input + b * p.in_h * p.in_w * p.in_c;
  if (g.direct) {
    return in_b + ((oy * p.stride_h) * p.in_w + ox * p.stride_w) * p.in_c;
  }
  const int32_t ic = p.in_c;
  const int32_t in_y0 = oy * p.stride_h - p.pad_top;
  const int32_t in_x0 = ox * p.stride_w - p.pad_left;
  const int32_t row_bytes = p.k_w * ic;
  if (p.dilation_w == 1 && row_bytes <= 16) {
    // Rows of <= 16 contiguous bytes: one predicated vector load/store per row; border pixels
    // first fill the patch with the zero point, then copy the rows' inside parts.
    const int32_t dh = p.dilation_h;
    const int32_t src_stride = dh * p.in_w * ic;
    if (in_x0 >= 0 && in_x0 + p.k_w <= p.in_w && in_y0 >= 0 &&
        in_y0 + (p.k_h - 1) * dh < p.in_h) {
      CopyRows(slot, in_b + (in_y0 * p.in_w + in_x0) * ic, row_bytes, src_stride, row_bytes,
               p.k_h);
      return slot;
    }
    int32_t kx_lo = 0, kx_hi = p.k_w;
    if (in_x0 < 0) kx_lo = -in_x0 < p.k_w ? -in_x0 : p.k_w;
    if (in_x0 + p.k_w > p.in_w) kx_hi = p.in_w - in_x0 > kx_lo ? p.in_w - in_x0 : kx_lo;
    int32_t ky_lo = 0, ky_hi = p.k_h;
    if (in_y0 < 0) {
      ky_lo = (-in_y0 + dh - 1) / dh;
      if (ky_lo > p.k_h) ky_lo = p.k_h;
    }
    if (in_y0 + (p.k_h - 1) * dh >= p.in_h) {
      ky_hi = in_y0 < p.in_h ? (p.in_h - in_y0 - 1) / dh + 1 : 0;
      if (ky_hi < ky_lo) ky_hi = ky_lo;
    }
    FillRun(slot, g.zero_point, g.k);
    if (kx_hi > kx_lo && ky_hi > ky_lo) {
      CopyRows(slot + ky_lo * row_bytes + kx_lo * ic,
               in_b + ((in_y0 + ky_lo * dh) * p.in_w + in_x0 + kx_lo) * ic,
               (kx_hi - kx_lo) * ic, src_stride, row_bytes, ky_hi - ky_lo);
    }
    return slot;
  }
  // Taps [kx_lo, kx_hi) of a row are inside the input (dilation 1).
  int32_t kx_lo = 0, kx_hi = p.k_w;
  if (p.dilation_w == 1) {
    if (in_x0 < 0) kx_lo = -in_x0 < p.k_w ? -in_x0 : p.k_w;
    if (in_x0 + p.k_w > p.in_w) kx_hi = p.in_w - in_x0 > kx_lo ? p.in_w - in_x0 : kx_lo;
  }
  int8_t* dst = slot;
  for (int32_t ky = 0; ky < p.k_h; ++ky) {
    const int32_t iy = in_y0 + ky * p.dilation_h;
    if (iy < 0 || iy >= p.in_h) {
      dst = FillRun(dst, g.zero_point, row_bytes);
      continue;
    }
    const int8_t* src_row = in_b + (iy * p.in_w + in_x0) * ic;
    if (p.dilation_w == 1) {
      if (kx_lo > 0) dst = FillRun(dst, g.zero_point, kx_lo * ic);
      if (kx_hi > kx_lo) dst = CopyRun(dst, src_row + kx_lo * ic, (kx_hi - kx_lo) * ic);
      if (kx_hi < p.k_w) dst = FillRun(dst, g.zero_point, (p.k_w - kx_hi) * ic);
      continue;
    }
    for (int32_t kx = 0; kx < p.k_w; ++kx) {
      const int32_t ix = in_x0 + kx * p.dilation_w;
      if (ix < 0 || ix >= p.in_w) {
        dst = FillRun(dst, g.zero_point, ic);
      } else {
        dst = CopyRun(dst, src_row + kx * p.dilation_w * ic, ic);
      }
    }
  }
  return slot;
}

// An in-place tile's columns (Run): np pixels from px, the first `held` read where they are
// (their routine holds a column in registers), the rest copied into `patches` first.
[[gnu::noinline]] inline void InPlaceColumns(const int8_t* px, int32_t np, int32_t held,
                                             int32_t in_c, int8_t* patches,
                                             const int8_t** cols) {
  for (int32_t i = 0; i < held; ++i) cols[i] = px + i * in_c;
  if (held < np) {
    CopyRun(patches, px + held * in_c, (np - held) * in_c);
    for (int32_t i = held; i < np; ++i) cols[i] = patches + (i - held) * in_c;
  }
}

// Output pixels per tile: im2col patches built in scratch (conv.inc)
// (s8_conv_mve_patch_pixels: 12 or 6), or pointers into the input for direct 1x1 convolutions.
constexpr int32_t kMaxPatchPixels = 12;
constexpr int32_t kDirectPixels = 24;

// kSmall (`--optimize size`'s paths, s8_conv__mve_{doubleneg,singleneg}_small.cc): 2 x 2
// blocks (mve::Tile) only, none of the K <= 64 rows, Tile23 or 3-row patch copies: about a
// third of the code.
template <int kMode, bool kSmall = false>
void Run(const Geometry& g, const int8_t* weights, const int32_t* bias, int8_t* output,
         int8_t* patches, int32_t* packed_space) {
  const s8_conv_params& p = *g.p;
  const int32_t k = g.k;
  const int32_t total = p.batches * p.out_h * p.out_w;
  // K <= 64 with the common requantization modes: input-stationary rows (mve_gemm.h).
  int32_t* packed = nullptr;
  bool four = false;  // K <= 16: 4 pixels x 1 channel per step (SmallK4Rows)
  if constexpr (!kSmall && (kMode == mve::kRqDoubleNeg || kMode == mve::kRqSingleNeg)) {
    // A warm call (p.warm) finds its table in scratch, except the quads of a K <= 16 call of
    // fewer than 4 pixels (a stream's last unit: the units before it packed channels).
    // With p.lean (K > 16 only) the compiler built the table (packed_space is the bias
    // operand's, s8_conv_mve_lean_word).
    if (k <= 16 && total >= 4) {
      four = true;
      packed = packed_space;
      if (!p.warm) mve::PackChannels(bias, p.multiplier, p.shift, p.out_c, packed);
    } else if (k <= 64 && p.out_c >= 4) {
      packed = packed_space;
      if (!p.lean && (!p.warm || k <= 16)) {
        mve::PackQuads(bias, p.multiplier, p.shift, 1, p.out_c >> 2, packed);
      }
    }
  }
  // Tile23 (K > 16, even out_c, common modes): the per-pair table, once per call.
  bool tile23 = false;
  if constexpr (!kSmall && (kMode == mve::kRqDoubleNeg || kMode == mve::kRqSingleNeg)) {
    if (packed == nullptr && (p.out_c & 1) == 0 && k > 16) {
      tile23 = true;
      if (!p.warm && !p.lean) PairTable(bias, p.multiplier, p.shift, p.out_c, packed_space);
    }
  }
  // In place (conv.h, s8_conv_same_pixels): a pixel's outputs overwrite its column. The
  // K <= 64 rows (out_c % 4 == 0) and SmallK4Rows's groups of 4 pixels load the whole column
  // into registers before writing any output of it; the other routines read a column again
  // per channel pair, so their pixels are first copied into the patch space
  // (s8_conv_mve_in_place_pixels per tile; with SmallK4Rows only a tile's last 1..3).
  const bool in_place = g.direct && output == g.input;
  const bool in_regs = (packed != nullptr && !four && (p.out_c & 3) == 0) || four;
  const int32_t tile = in_place && !in_regs ? s8_conv_mve_in_place_pixels(p)
                       : g.direct           ? kDirectPixels
                                            : s8_conv_mve_patch_pixels(p);
  static_assert(kMaxPatchPixels <= kDirectPixels, "cols[] holds a tile");
  const mve::Preds pr = mve::MakePreds();
  const int8_t* cols[kDirectPixels];
  // Rows of <= 16 contiguous bytes: interior pixels (window inside the input) copied here
  // without Column's bounds logic. Unsigned compares: 0 <= x0 <= x_max, 0 <= y0 <= y_max.
  const int32_t row_bytes = p.k_w * p.in_c;
  const int32_t x_last = p.in_w - p.k_w;                          // largest interior x0
  const int32_t y_last = p.in_h - 1 - (p.k_h - 1) * p.dilation_h;  // largest interior y0
  // Rows of whole vectors (row_bytes % 16 == 0, e.g. 3x3 over 16, 32, 64 channels): interior
  // pixels copied by CopyPatchesWide.
  const bool rows_fast = !g.direct && p.dilation_w == 1 &&
                         (row_bytes <= 16 || (row_bytes & 15) == 0) && x_last >= 0 &&
                         y_last >= 0;
  const bool wide = row_bytes > 16;
  const uint32_t x_max = static_cast<uint32_t>(x_last);
  const uint32_t y_max = static_cast<uint32_t>(y_last);
  const int32_t src_stride = p.dilation_h * p.in_w * p.in_c;
  const int32_t batch_bytes = p.in_h * p.in_w * p.in_c;
  const int32_t x_step = p.stride_w * p.in_c;
  // Output columns ox < ox_hi have x0 <= x_last (when rows_fast).
  int32_t ox_hi = rows_fast ? (x_last + p.pad_left) / p.stride_w + 1 : 0;
  if (ox_hi > p.out_w) ox_hi = p.out_w;
  int32_t b = 0, oy = 0, ox = 0;  // the next output pixel
  for (int32_t n = 0; n < total; n += tile) {
    const int32_t np = total - n < tile ? total - n : tile;
    if (in_place) {  // 1x1 stride 1 over the input's shape: pixel n is at n * in_c
      InPlaceColumns(g.input + n * p.in_c, np, !in_regs ? 0 : four ? (np & ~3) : np, p.in_c,
                     patches, cols);
    } else if (g.direct) {  // columns are input pixels
      const int8_t* px =
          g.input + b * batch_bytes + (oy * p.stride_h * p.in_w + ox * p.stride_w) * p.in_c;
      for (int32_t i = 0; i < np; ++i, px += x_step) {
        cols[i] = px;
        if (++ox == p.out_w) {
          ox = 0;
          if (++oy == p.out_h) {
            oy = 0;
            ++b;
          }
          px = g.input + b * batch_bytes + oy * p.stride_h * p.in_w * p.in_c - x_step;
        }
      }
    } else if (!rows_fast) {
      for (int32_t i = 0; i < np; ++i) {
        cols[i] = Column(g, b, oy, ox, patches + i * k);
        if (++ox == p.out_w) {
          ox = 0;
          if (++oy == p.out_h) {
            oy = 0;
            ++b;
          }
        }
      }
    } else {
      for (int32_t i = 0; i < np;) {
        const int32_t x0 = ox * p.stride_w - p.pad_left;
        const int32_t y0 = oy * p.stride_h - p.pad_top;
        int32_t run = 1;
        if (static_cast<uint32_t>(x0) <= x_max && static_cast<uint32_t>(y0) <= y_max) {
          // This and the next interior pixels of the output row (at most the tile's rest).
          run = ox_hi - ox < np - i ? ox_hi - ox : np - i;
          const int8_t* src = g.input + b * batch_bytes + (y0 * p.in_w + x0) * p.in_c;
          if (!kSmall && wide && p.k_h == 3) {
            CopyPatchesWide3(patches + i * k, src, row_bytes, src_stride, x_step, run);
          } else if (wide) {
            CopyPatchesWide(patches + i * k, src, row_bytes, src_stride, p.k_h, x_step, run);
          } else {
            CopyPatches(patches + i * k, src, row_bytes, src_stride, p.k_h, x_step, run);
          }
          for (int32_t j = 0; j < run; ++j) cols[i + j] = patches + (i + j) * k;
          ox += run;
        } else {
          cols[i] = Column(g, b, oy, ox, patches + i * k);
          ++ox;
        }
        i += run;
        if (ox == p.out_w) {
          ox = 0;
          if (++oy == p.out_h) {
            oy = 0;
            ++b;
          }
        }
      }
    }
    if (kSmall) {
      mve::Tile<kMode>(cols, np, weights, k, bias, p.multiplier, p.shift, 1, p.out_c,
                       p.output_offset, p.act_min, p.act_max, output + n * p.out_c, pr,
                       p.rounding);
    } else if (four) {
      const int32_t done = mve::SmallK4Rows<kMode>(cols, np, weights, k, packed, p.out_c,
                                                   p.output_offset, p.act_min, p.act_max,
                                                   output + n * p.out_c);
      if (done < np) {  // the last 1..3 pixels
        mve::Tile<kMode>(cols + done, np - done, weights, k, bias, p.multiplier, p.shift, 1,
                         p.out_c, p.output_offset, p.act_min, p.act_max,
                         output + (n + done) * p.out_c, pr);
      }
    } else if (packed != nullptr) {
      mve::SmallKRows<kMode>(cols, np, weights, k, bias, p.multiplier, p.shift, 1, packed,
                             p.out_c, p.output_offset, p.act_min, p.act_max,
                             output + n * p.out_c);
    } else {
      int32_t done = 0;
      if constexpr (!kSmall && (kMode == mve::kRqDoubleNeg || kMode == mve::kRqSingleNeg)) {
        if (tile23) {
          done = Tile23<kMode>(cols, np, weights, k, packed_space, p.out_c, p.output_offset,
                               p.act_min, p.act_max, output + n * p.out_c);
        }
      }
      if (done < np) {
        mve::Tile<kMode>(cols + done, np - done, weights, k, bias, p.multiplier, p.shift, 1,
                         p.out_c, p.output_offset, p.act_min, p.act_max,
                         output + (n + done) * p.out_c, pr);
      }
    }
  }
}

// The kernel for one requantization mode (the dispatcher chose it): effective bias, then Run.
template <int kMode, bool kSmall = false>
inline void Conv(const s8_conv_params* params, const int8_t* input, const int8_t* weights,
                 const int32_t* bias, int8_t* output, void* scratch) {
  const s8_conv_params& p = *params;
  Geometry g;
  g.p = params;
  g.input = input;
  g.k = p.k_h * p.k_w * p.in_c;
  g.direct = s8_conv_is_direct(p);
  g.zero_point = static_cast<int8_t>(-p.input_offset);
  // Scratch (16-aligned, s8_conv_mve_scratch_bytes): the table (s8_conv_mve_table_bytes:
  // packed quads or channels, 12 * out_c, or Tile23's pair table, 24 * out_c) and the
  // effective bias (4 * out_c, with an input offset), unless the bias operand brings both
  // (p.lean: bias, effective bias, table), then the patches. (A null bias without an input
  // offset is __ref's: the dispatcher.)
  const uintptr_t base = (reinterpret_cast<uintptr_t>(scratch) + 15u) & ~uintptr_t{15};
  int32_t* packed = reinterpret_cast<int32_t*>(base);
  int32_t* rest = packed;
  const int32_t* b = bias;
  if (p.lean) {
    b = bias + p.out_c;
    packed = const_cast<int32_t*>(b + p.out_c);  // (read only: Run builds no table)
  } else {
    rest += s8_conv_mve_table_bytes(p) / 4;
    if (p.input_offset != 0) {
      if (!p.warm) mve::EffectiveBias(bias, weights, g.k, p.out_c, p.input_offset, rest);
      b = rest;
      rest += p.out_c;
    }
  }
  Run<kMode, kSmall>(g, weights, b, output, reinterpret_cast<int8_t*>(rest), packed);
}

}  // namespace

#endif  // TINYFORGE_KERNELS_CONV_MVE_CONV_RUN_H_
