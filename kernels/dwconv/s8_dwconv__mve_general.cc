// DEPTHWISE_CONV_2D for Cortex-M55 (Helium / MVE), general path (s8_dwconv__mve.cc chooses it
// for kernels of more than 16 taps, huge rows, or no scratch): lanes are 4 output channels,
// one output pixel at a time, with the input offset added to the loaded inputs.
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


}  // namespace

void s8_dwconv__mve__general(const s8_dwconv_params& p, const int8_t* input, const int8_t* weights,
             const int32_t* bias, int8_t* output) {
  bool non_neg = false;
  for (int32_t c = 0; c < p.out_c; ++c) non_neg = non_neg || p.shift[c] >= 0;
  if (p.rounding == TF_ROUNDING_SINGLE) {
    if (non_neg)
      GeneralT<true, true>(p, input, weights, bias, output);
    else
      GeneralT<true, false>(p, input, weights, bias, output);
  } else {
    if (non_neg)
      GeneralT<false, true>(p, input, weights, bias, output);
    else
      GeneralT<false, false>(p, input, weights, bias, output);
  }
}

}  // namespace tinyforge::dwconv_mve

#endif  // TF_HAVE_MVE
