// CONV_2D for Cortex-M55 (Helium/MVE). Bit-identical to s8_conv__ref.
//
// Every output pixel is a dot product of a "column" of K = k_h * k_w * in_c int8 values with
// each output channel's OHWI weight row (kernels/conv/mve_gemm.h, 2 pixels x 2 channels per
// block). The column is the input pixel itself for unpadded 1x1 convolutions (pointwise, any
// stride), otherwise an im2col patch built in scratch (8 pixels at a time), with taps outside the
// input set to the input zero point; the input offset then enters once per call through a
// per-channel bias (bias + input_offset * sum(w)), also in scratch. Grouped convolutions
// (rare) run the reference loop (s8_conv__ref).
//
// Patches whose kernel rows are <= 16 contiguous bytes (dilation_w 1, k_w * in_c <= 16, e.g. the
// first convolutions: 10x4x1, 3x3x3) are built with one predicated vector load/store per kernel
// row: runs of interior pixels of an output row in one assembly loop (CopyPatches), border
// pixels by filling the patch with the zero point and copying the rows' inside parts.
// K <= 64 with out_c % 4 == 0 runs a tile's columns in one assembly call (SmallKRow_*; K = 24 / 40
// without predicated tails).
//
// K <= 16 (e.g. pointwise 8 -> 16 channels): 4 pixels' columns in registers, one channel per
// step (SmallK4Rows). Scratch (conv.inc): 12 * out_c bytes of packed bias/multiplier/shift, 4 * out_c of bias,
// 8 * K of patches (none for direct 1x1 convolutions), 16 for alignment.
#include "kernels/conv/conv.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

#include "kernels/conv/mve_gemm.h"

namespace {

namespace fx = tinyforge::fx;
namespace mve = tinyforge::mve;

struct Geometry {
  const s8_conv_params* p;
  const int8_t* input;
  int32_t k;          // column length
  bool direct;        // columns are input pixels
  int8_t zero_point;  // value of a padded tap
};

// Copies n >= 1 bytes / fills n >= 1 bytes with v (tail-predicated loops).
inline int8_t* CopyRun(int8_t* dst, const int8_t* src, int32_t n) {
  int8_t* const end = dst + n;  // the loop's pointers advance by whole vectors
  __asm__ volatile(
      "dlstp.8 lr, %[n]\n"
      "1:\n\t"
      "vldrb.8 q0, [%[s]], #16\n\t"
      "vstrb.8 q0, [%[d]], #16\n\t"
      "letp lr, 1b\n"
      : [s] "+r"(src), [d] "+r"(dst)
      : [n] "r"(n)
      : "q0", "lr", "memory");
  return end;
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

// Output pixels per tile: im2col patches built in scratch (conv.inc), or pointers into the
// input for direct 1x1 convolutions.
constexpr int32_t kPatchPixels = 8;
constexpr int32_t kDirectPixels = 16;

template <int kMode>
void Run(const Geometry& g, const int8_t* weights, const int32_t* bias, int8_t* output,
         int8_t* patches, int32_t* packed_space) {
  const s8_conv_params& p = *g.p;
  const int32_t k = g.k;
  const int32_t total = p.batches * p.out_h * p.out_w;
  // K <= 64 with the common requantization modes: input-stationary rows (mve_gemm.h).
  int32_t* packed = nullptr;
  bool four = false;  // K <= 16: 4 pixels x 1 channel per step (SmallK4Rows)
  if constexpr (kMode == mve::kRqDoubleNeg || kMode == mve::kRqSingle) {
    if (k <= 16 && total >= 4) {
      four = true;
      packed = packed_space;
      mve::PackChannels(bias, p.multiplier, p.shift, p.out_c, packed);
    } else if (k <= 64 && p.out_c >= 4) {
      packed = packed_space;
      mve::PackQuads(bias, p.multiplier, p.shift, 1, p.out_c >> 2, packed);
    }
  }
  const int32_t tile = g.direct ? kDirectPixels : kPatchPixels;
  const mve::Preds pr = mve::MakePreds();
  const int8_t* cols[kDirectPixels];
  // Rows of <= 16 contiguous bytes: interior pixels (window inside the input) copied here
  // without Column's bounds logic. Unsigned compares: 0 <= x0 <= x_max, 0 <= y0 <= y_max.
  const int32_t row_bytes = p.k_w * p.in_c;
  const int32_t x_last = p.in_w - p.k_w;                          // largest interior x0
  const int32_t y_last = p.in_h - 1 - (p.k_h - 1) * p.dilation_h;  // largest interior y0
  const bool rows_fast =
      !g.direct && p.dilation_w == 1 && row_bytes <= 16 && x_last >= 0 && y_last >= 0;
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
    if (g.direct) {  // columns are input pixels
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
          CopyPatches(patches + i * k, g.input + b * batch_bytes + (y0 * p.in_w + x0) * p.in_c,
                      row_bytes, src_stride, p.k_h, x_step, run);
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
    if (four) {
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
      mve::Tile<kMode>(cols, np, weights, k, bias, p.multiplier, p.shift, 1, p.out_c,
                       p.output_offset, p.act_min, p.act_max, output + n * p.out_c, pr);
    }
  }
}

}  // namespace

extern "C" void s8_conv__mve(const s8_conv_params* params, const int8_t* input,
                             const int8_t* weights, const int32_t* bias, int8_t* output,
                             void* scratch) {
  const s8_conv_params& p = *params;
  if (p.filter_in_c != p.in_c) {  // grouped convolution
    s8_conv__ref(params, input, weights, bias, output, nullptr);
    return;
  }
  Geometry g;
  g.p = params;
  g.input = input;
  g.k = p.k_h * p.k_w * p.in_c;
  g.direct = s8_conv_is_direct(p);
  g.zero_point = static_cast<int8_t>(-p.input_offset);
  // Scratch: packed quads (12 * out_c bytes), bias (4 * out_c), patches (4 * K); 16-aligned.
  const uintptr_t base = (reinterpret_cast<uintptr_t>(scratch) + 15u) & ~uintptr_t{15};
  int32_t* packed = reinterpret_cast<int32_t*>(base);
  int32_t* ebias = packed + 3 * p.out_c;
  int8_t* cols = reinterpret_cast<int8_t*>(ebias + p.out_c);
  const int32_t* b = bias;
  if (bias == nullptr || p.input_offset != 0) {
    mve::EffectiveBias(bias, weights, g.k, p.out_c, p.input_offset, ebias);
    b = ebias;
  }
  switch (mve::ChooseMode(p.shift, p.out_c, p.rounding)) {
    case mve::kRqDoubleNeg:
      Run<mve::kRqDoubleNeg>(g, weights, b, output, cols, packed);
      break;
    case mve::kRqDouble:
      Run<mve::kRqDouble>(g, weights, b, output, cols, packed);
      break;
    case mve::kRqDoubleLeft:
      Run<mve::kRqDoubleLeft>(g, weights, b, output, cols, packed);
      break;
    case mve::kRqSingle:
      Run<mve::kRqSingle>(g, weights, b, output, cols, packed);
      break;
    default:
      Run<mve::kRqScalar>(g, weights, b, output, cols, packed);
      break;
  }
}

#endif  // MVE
