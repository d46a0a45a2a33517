// CONV_2D for Cortex-M55 (Helium/MVE). Bit-identical to s8_conv__ref.
//
// Every output pixel is a dot product of a "column" of K = k_h * k_w * in_c int8 values with
// each output channel's OHWI weight row (kernels/conv/mve_gemm.h, 2 pixels x 2 channels per
// block). The column is the input pixel itself for unpadded 1x1 convolutions (pointwise, any
// stride), otherwise an im2col patch built in scratch (8 pixels at a time), with taps outside the
// input set to the input zero point; the input offset then enters once per call through a
// per-channel bias (bias + input_offset * sum(w)), also in scratch. Grouped convolutions
// (rare) run the reference loop (conv_generic.h).
//
// K <= 16 (e.g. pointwise 8 -> 16 channels): 4 pixels' columns in registers, one channel per
// step (SmallK4Rows). Scratch (conv.inc): 12 * out_c bytes of packed bias/multiplier/shift, 4 * out_c of bias,
// 8 * K of patches (none for direct 1x1 convolutions), 16 for alignment.
#include "kernels/conv/conv.h"
#include "kernels/conv/conv_generic.h"

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
  int32_t b = 0, oy = 0, ox = 0;  // the next output pixel
  for (int32_t n = 0; n < total; n += tile) {
    const int32_t np = total - n < tile ? total - n : tile;
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
    tinyforge::conv_generic::Conv(p, input, weights, bias, output);
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
