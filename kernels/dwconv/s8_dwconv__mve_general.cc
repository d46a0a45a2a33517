// DEPTHWISE_CONV_2D for Cortex-M55 (Helium / MVE), general path (s8_dwconv__mve.cc takes it
// where the plane path declines: kernels of more than 64 taps, over 16 taps on maps smaller
// than the kernel or of fewer than 16 outputs, huge rows, or no scratch):
// one output pixel at a time, the input offset added to the loaded inputs; depth multiplier
// 1 by blocks of 16 channels over the window clipped once per pixel (Dm1T), any other by
// 4-lane gathers with per-tap bounds checks (GeneralT).
#include "kernels/common/isa.h"
#include "kernels/dwconv/dwconv.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/dwconv/mve_dwconv.h"

namespace tinyforge::dwconv_mve {
namespace {

template <bool kSingle, bool kNonNeg>
void GeneralT(const s8_dwconv_params& p, const int8_t* input, const int8_t* weights,
             const int32_t* bias, int8_t* output) {
  const int32_t dm = p.depth_multiplier;
  const int32x4_t vmin = vdupq_n_s32(p.act_min);
  const int32x4_t vmax = vdupq_n_s32(p.act_max);
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* in_batch = input + b * p.in_h * p.in_w * p.in_c;
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      const int32_t in_y0 = oy * p.stride_h - p.pad_top;
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        const int32_t in_x0 = ox * p.stride_w - p.pad_left;
        int8_t* out_px = output + ((b * p.out_h + oy) * p.out_w + ox) * p.out_c;
        for (int32_t oc = 0; oc < p.out_c; oc += 4) {
          const mve_pred16_t pred = vctp32q(static_cast<uint32_t>(p.out_c - oc));
          // Input channel of each lane: (oc + lane) / dm.
          uint32x4_t in_ch = vidupq_n_u32(static_cast<uint32_t>(oc), 1);
          if (dm != 1) {
            const uint32_t lanes[4] = {
                static_cast<uint32_t>(oc / dm), static_cast<uint32_t>((oc + 1) / dm),
                static_cast<uint32_t>((oc + 2) / dm), static_cast<uint32_t>((oc + 3) / dm)};
            in_ch = vld1q_u32(lanes);
          }
          int32x4_t acc = bias != nullptr ? vldrwq_z_s32(bias + oc, pred) : vdupq_n_s32(0);
          for (int32_t ky = 0; ky < p.k_h; ++ky) {
            const int32_t in_y = in_y0 + ky * p.dilation_h;
            if (in_y < 0 || in_y >= p.in_h) continue;
            for (int32_t kx = 0; kx < p.k_w; ++kx) {
              const int32_t in_x = in_x0 + kx * p.dilation_w;
              if (in_x < 0 || in_x >= p.in_w) continue;
              const int8_t* px = in_batch + (in_y * p.in_w + in_x) * p.in_c;
              const int32x4_t xv =
                  vaddq_n_s32(vldrbq_gather_offset_z_s32(px, in_ch, pred), p.input_offset);
              const int32x4_t wv = vldrbq_z_s32(weights + (ky * p.k_w + kx) * p.out_c + oc, pred);
              acc = vaddq_s32(acc, vmulq_s32(xv, wv));
            }
          }
          const int32x4_t mult = vldrwq_z_s32(p.multiplier + oc, pred);
          const int32x4_t shift = vldrwq_z_s32(p.shift + oc, pred);
          int32x4_t r = RequantVector<kSingle, kNonNeg>(acc, mult, shift);
          r = vaddq_n_s32(r, p.output_offset);
          r = vminq_s32(vmaxq_s32(r, vmin), vmax);
          vstrbq_p_s32(out_px + oc, r, pred);
        }
      }
    }
  }
}

using dwconv::ValidTaps;

// One output pixel's channels [c, c + 4 kVecs) of a depth multiplier 1 convolution over the
// taps [ky0, ky1) x [kx0, kx1): kVecs 4-lane accumulators; `pred` limits the loads and
// stores (all lanes in the full blocks: no predicate switching in the tap loop).
struct Dm1Pixel {
  const int8_t* x;  // the input at (in_y0 + ky0 * dilation_h, in_x0 + kx0 * dilation_w), c
  const int8_t* w;  // the weights at (ky0, kx0), c
  int8_t* out;      // the output pixel's channel c
  int32_t rows, cols;  // ky1 - ky0, kx1 - kx0
  int32_t c;
};

template <bool kSingle, bool kNonNeg, int kVecs>
inline void Dm1Block(const s8_dwconv_params& p, const Dm1Pixel& px, const int32_t* bias,
                     int32_t x_row, int32_t x_col, int32_t w_row, mve_pred16_t pred) {
  constexpr int32_t kLanes = 4;
  const int32_t c_n = p.out_c, off = p.input_offset;
  int32x4_t acc[kVecs];
  for (int32_t j = 0; j < kVecs; ++j) {
    acc[j] = bias != nullptr ? vldrwq_z_s32(bias + px.c + kLanes * j, pred) : vdupq_n_s32(0);
  }
  const int8_t* xr = px.x;
  const int8_t* wr = px.w;
  for (int32_t r = 0; r < px.rows; ++r, xr += x_row, wr += w_row) {
    const int8_t* x = xr;
    const int8_t* w = wr;
    for (int32_t k = 0; k < px.cols; ++k, x += x_col, w += c_n) {
      for (int32_t j = 0; j < kVecs; ++j) {
        const int32x4_t xv = kVecs == 1 ? vldrbq_z_s32(x, pred) : vldrbq_s32(x + kLanes * j);
        const int32x4_t wv = kVecs == 1 ? vldrbq_z_s32(w, pred) : vldrbq_s32(w + kLanes * j);
        acc[j] = vaddq_s32(acc[j], vmulq_s32(vaddq_n_s32(xv, off), wv));
      }
    }
  }
  for (int32_t j = 0; j < kVecs; ++j) {
    const int32_t c = px.c + kLanes * j;
    const int32x4_t mult = vldrwq_z_s32(p.multiplier + c, pred);
    const int32x4_t shift = vldrwq_z_s32(p.shift + c, pred);
    int32x4_t r = RequantVector<kSingle, kNonNeg>(acc[j], mult, shift);
    r = vaddq_n_s32(r, p.output_offset);
    r = vminq_s32(vmaxq_s32(r, vdupq_n_s32(p.act_min)), vdupq_n_s32(p.act_max));
    vstrbq_p_s32(px.out + kLanes * j, r, pred);
  }
}

// Depth multiplier 1 (out_c == in_c): per output pixel, its window clipped to the input once
// (no per-tap bounds checks), then blocks of 16 channels (four 4-lane accumulators,
// unpredicated) and the rest 4 at a time; inputs and weights by widening loads, about 5
// instructions per 4 MACs (MVE has no per-lane vector MLA). Kernels of more than 16 taps
// (5x5: MobileNetV3, EfficientNet) ran GeneralT's per-tap checked gathers at about 7
// instructions per MAC.
template <bool kSingle, bool kNonNeg>
void Dm1T(const s8_dwconv_params& p, const int8_t* input, const int8_t* weights,
          const int32_t* bias, int8_t* output) {
  const int32_t c_n = p.out_c;
  const int32_t x_col = p.dilation_w * c_n, x_row = p.dilation_h * p.in_w * c_n;
  const int32_t w_row = p.k_w * c_n;
  const mve_pred16_t all = vctp32q(4);
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* in_batch = input + b * p.in_h * p.in_w * c_n;
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      const int32_t in_y0 = oy * p.stride_h - p.pad_top;
      int32_t ky0, ky1;
      ValidTaps(in_y0, p.dilation_h, p.k_h, p.in_h, &ky0, &ky1);
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        const int32_t in_x0 = ox * p.stride_w - p.pad_left;
        int32_t kx0, kx1;
        ValidTaps(in_x0, p.dilation_w, p.k_w, p.in_w, &kx0, &kx1);
        Dm1Pixel px;
        px.rows = ky1 > ky0 ? ky1 - ky0 : 0;
        px.cols = kx1 > kx0 ? kx1 - kx0 : 0;
        px.x = in_batch +
               ((in_y0 + ky0 * p.dilation_h) * p.in_w + in_x0 + kx0 * p.dilation_w) * c_n;
        px.w = weights + (ky0 * p.k_w + kx0) * c_n;
        px.out = output + ((b * p.out_h + oy) * p.out_w + ox) * c_n;
        px.c = 0;
        for (; px.c + 16 <= c_n; px.c += 16, px.x += 16, px.w += 16, px.out += 16) {
          Dm1Block<kSingle, kNonNeg, 4>(p, px, bias, x_row, x_col, w_row, all);
        }
        for (; px.c < c_n; px.c += 4, px.x += 4, px.w += 4, px.out += 4) {
          Dm1Block<kSingle, kNonNeg, 1>(p, px, bias, x_row, x_col, w_row,
                                        vctp32q(static_cast<uint32_t>(c_n - px.c)));
        }
      }
    }
  }
}

template <bool kSingle, bool kNonNeg>
void Run(const s8_dwconv_params& p, const int8_t* input, const int8_t* weights,
         const int32_t* bias, int8_t* output) {
  if (p.depth_multiplier == 1) {
    Dm1T<kSingle, kNonNeg>(p, input, weights, bias, output);
  } else {
    GeneralT<kSingle, kNonNeg>(p, input, weights, bias, output);
  }
}

}  // namespace

void s8_dwconv__mve__general(const s8_dwconv_params& p, const int8_t* input, const int8_t* weights,
             const int32_t* bias, int8_t* output) {
  bool non_neg = false;
  for (int32_t c = 0; c < p.out_c; ++c) non_neg = non_neg || p.shift[c] >= 0;
  if (p.rounding == TF_ROUNDING_SINGLE) {
    if (non_neg)
      Run<true, true>(p, input, weights, bias, output);
    else
      Run<true, false>(p, input, weights, bias, output);
  } else {
    if (non_neg)
      Run<false, true>(p, input, weights, bias, output);
    else
      Run<false, false>(p, input, weights, bias, output);
  }
}

}  // namespace tinyforge::dwconv_mve

#endif  // TF_HAVE_MVE
