// Portable reference DEPTHWISE_CONV_2D (the oracle for every other dwconv variant).
#include "kernels/common/fixed_point.h"
#include "kernels/dwconv/dwconv.h"

namespace fx = tinyforge::fx;

namespace {

// Output channel oc = ic * depth_multiplier + m at (oy, ox), reading input channel ic as
// src[(y * in_w + x) * step] (one batch).
int8_t OutputAt(const s8_dwconv_params& p, const int8_t* src, int32_t step, const int8_t* weights,
                const int32_t* bias, int32_t oy, int32_t ox, int32_t oc) {
  const int32_t in_y0 = oy * p.stride_h - p.pad_top;
  const int32_t in_x0 = ox * p.stride_w - p.pad_left;
  int32_t acc = 0;
  for (int32_t ky = 0; ky < p.k_h; ++ky) {
    const int32_t in_y = in_y0 + ky * p.dilation_h;
    if (in_y < 0 || in_y >= p.in_h) continue;
    for (int32_t kx = 0; kx < p.k_w; ++kx) {
      const int32_t in_x = in_x0 + kx * p.dilation_w;
      if (in_x < 0 || in_x >= p.in_w) continue;
      const int32_t in_val = src[(in_y * p.in_w + in_x) * step];
      const int32_t w_val = weights[(ky * p.k_w + kx) * p.out_c + oc];
      acc = fx::WrapAdd(acc, w_val * (in_val + p.input_offset));
    }
  }
  if (bias != nullptr) acc = fx::WrapAdd(acc, bias[oc]);
  acc = fx::Requantize(acc, p.multiplier[oc], p.shift[oc], p.rounding);
  acc = fx::WrapAdd(acc, p.output_offset);
  return static_cast<int8_t>(fx::Clamp(acc, p.act_min, p.act_max));
}

}  // namespace

extern "C" void s8_dwconv__ref(const s8_dwconv_params* params, const int8_t* input,
                               const int8_t* weights, const int32_t* bias, int8_t* output,
                               void* scratch) {
  const s8_dwconv_params& p = *params;
  const int32_t in_px = p.in_h * p.in_w;
  if (output == input) {
    // In place (dwconv.h: stride 1, the output the input's shape, scratch of at least in_h *
    // in_w bytes, as every in-place variant's is): channel by channel from a copy of its plane.
    int8_t* plane = static_cast<int8_t*>(scratch);
    for (int32_t b = 0; b < p.batches; ++b) {
      int8_t* io = output + b * in_px * p.in_c;
      for (int32_t c = 0; c < p.in_c; ++c) {
        for (int32_t i = 0; i < in_px; ++i) plane[i] = io[i * p.in_c + c];
        for (int32_t oy = 0; oy < p.out_h; ++oy) {
          for (int32_t ox = 0; ox < p.out_w; ++ox) {
            io[(oy * p.out_w + ox) * p.out_c + c] =
                OutputAt(p, plane, 1, weights, bias, oy, ox, c);
          }
        }
      }
    }
    return;
  }
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* in_batch = input + b * in_px * p.in_c;
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        int8_t* out_px = output + ((b * p.out_h + oy) * p.out_w + ox) * p.out_c;
        for (int32_t ic = 0; ic < p.in_c; ++ic) {
          for (int32_t m = 0; m < p.depth_multiplier; ++m) {
            const int32_t oc = ic * p.depth_multiplier + m;
            out_px[oc] = OutputAt(p, in_batch + ic, p.in_c, weights, bias, oy, ox, oc);
          }
        }
      }
    }
  }
}
