// Portable reference CONV_2D (the oracle for every other conv variant).
#include "kernels/common/fixed_point.h"
#include "kernels/conv/conv.h"

namespace fx = tinyforge::fx;

namespace {

// The convolution of `input` into `output` (separate buffers).
[[gnu::noinline]] void Convolve(const s8_conv_params& p, const int8_t* input,
                                const int8_t* weights, const int32_t* bias, int8_t* output) {
  const int32_t groups = p.in_c / p.filter_in_c;
  const int32_t filters_per_group = p.out_c / groups;

  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* in_batch = input + b * p.in_h * p.in_w * p.in_c;
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      const int32_t in_y0 = oy * p.stride_h - p.pad_top;
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        const int32_t in_x0 = ox * p.stride_w - p.pad_left;
        for (int32_t oc = 0; oc < p.out_c; ++oc) {
          const int32_t group = oc / filters_per_group;
          const int8_t* filter = weights + oc * p.k_h * p.k_w * p.filter_in_c;
          int32_t acc = 0;
          for (int32_t ky = 0; ky < p.k_h; ++ky) {
            const int32_t in_y = in_y0 + ky * p.dilation_h;
            if (in_y < 0 || in_y >= p.in_h) continue;
            for (int32_t kx = 0; kx < p.k_w; ++kx) {
              const int32_t in_x = in_x0 + kx * p.dilation_w;
              if (in_x < 0 || in_x >= p.in_w) continue;
              const int8_t* in_px =
                  in_batch + (in_y * p.in_w + in_x) * p.in_c + group * p.filter_in_c;
              const int8_t* w_px = filter + (ky * p.k_w + kx) * p.filter_in_c;
              for (int32_t ic = 0; ic < p.filter_in_c; ++ic) {
                acc = fx::WrapAdd(acc, static_cast<int32_t>(w_px[ic]) *
                                           (static_cast<int32_t>(in_px[ic]) + p.input_offset));
              }
            }
          }
          if (bias != nullptr) acc = fx::WrapAdd(acc, bias[oc]);
          acc = fx::Requantize(acc, p.multiplier[oc], p.shift[oc], p.rounding);
          acc = fx::WrapAdd(acc, p.output_offset);
          output[((b * p.out_h + oy) * p.out_w + ox) * p.out_c + oc] =
              static_cast<int8_t>(fx::Clamp(acc, p.act_min, p.act_max));
        }
      }
    }
  }
}

}  // namespace

extern "C" void s8_conv__ref(const s8_conv_params* params, const int8_t* input,
                             const int8_t* weights, const int32_t* bias, int8_t* output,
                             void* scratch) {
  const s8_conv_params& p = *params;
  if (output != input) {
    Convolve(p, input, weights, bias, output);
    return;
  }
  // In place (conv.h, s8_conv_same_pixels: 1x1, stride 1, the output the input's shape;
  // scratch of at least in_c bytes): each pixel is copied out, then convolved as a 1x1 image.
  int8_t* px = static_cast<int8_t*>(scratch);
  s8_conv_params one = p;
  one.batches = one.in_h = one.in_w = one.out_h = one.out_w = 1;
  const int32_t pixels = p.batches * p.in_h * p.in_w;
  for (int32_t i = 0; i < pixels; ++i) {
    int8_t* io = output + i * p.in_c;
    for (int32_t c = 0; c < p.in_c; ++c) px[c] = io[c];
    Convolve(one, px, weights, bias, io);
  }
}
