// CONV_2D for cores without SIMD (Cortex-M0/M3; also built on the host). Bit-identical to
// s8_conv__ref.
//
// Pixels in pairs: each pixel's column (its input channels for an unpadded 1x1 convolution,
// otherwise an im2col patch with padded taps at the zero point) is widened once to int16 with
// the input offset added (kernels/common/gemm/scalar_gemm.h); then each channel pair's weights
// stream past both columns (2 x 2 blocks: every loaded value feeds 2 multiply-accumulates),
// without bounds checks. Grouped convolutions (rare) run the reference loop (s8_conv__ref).
//
// Scratch (conv.inc): two widened columns (2 * 2 * K bytes), one int8 patch (K bytes).
#include "kernels/conv/conv.h"
#include "kernels/common/gemm/scalar_gemm.h"

namespace {

namespace sc = tinyforge::scalar;

// The int8 im2col patch of output pixel (oy, ox), taps outside the input = zero point.
void Patch(const s8_conv_params& p, const int8_t* in_b, int32_t oy, int32_t ox, int8_t zp,
           int8_t* dst) {
  const int32_t in_y0 = oy * p.stride_h - p.pad_top;
  const int32_t in_x0 = ox * p.stride_w - p.pad_left;
  const int32_t ic = p.in_c;
  for (int32_t ky = 0; ky < p.k_h; ++ky) {
    const int32_t iy = in_y0 + ky * p.dilation_h;
    const bool row_in = iy >= 0 && iy < p.in_h;
    const int8_t* src_row = in_b + iy * p.in_w * ic;
    for (int32_t kx = 0; kx < p.k_w; ++kx, dst += ic) {
      const int32_t ix = in_x0 + kx * p.dilation_w;
      if (row_in && ix >= 0 && ix < p.in_w) {
        const int8_t* s = src_row + ix * ic;
        for (int32_t c = 0; c < ic; ++c) dst[c] = s[c];
      } else {
        for (int32_t c = 0; c < ic; ++c) dst[c] = zp;
      }
    }
  }
}

template <int kMode>
void Run(const s8_conv_params& p, const int8_t* input, const int8_t* weights, const int32_t* bias,
         int8_t* output, int16_t* ext, int8_t* patch) {
  const int32_t k = p.k_h * p.k_w * p.in_c;
  const bool direct = s8_conv_is_direct(p);
  const int8_t zp = static_cast<int8_t>(-p.input_offset);
  const sc::OutQ oq{p.output_offset, p.act_min, p.act_max};
  const int32_t total = p.batches * p.out_h * p.out_w;
  int32_t b = 0, oy = 0, ox = 0;  // the next pixel to widen
  for (int32_t n = 0; n < total; n += 2) {
    const int32_t np = total - n < 2 ? total - n : 2;
    for (int32_t j = 0; j < np; ++j) {
      const int8_t* in_b = input + b * p.in_h * p.in_w * p.in_c;
      const int8_t* src;
      if (direct) {
        src = in_b + ((oy * p.stride_h) * p.in_w + ox * p.stride_w) * p.in_c;
      } else {
        Patch(p, in_b, oy, ox, zp, patch);
        src = patch;
      }
      sc::Widen(src, k, p.input_offset, ext + j * k);
      if (++ox == p.out_w) {
        ox = 0;
        if (++oy == p.out_h) {
          oy = 0;
          ++b;
        }
      }
    }
    sc::Tile2<kMode>(ext, ext + k, np, weights, k, bias, p.multiplier, p.shift, 1, p.out_c, oq,
                     output + n * p.out_c);
  }
}

}  // namespace

extern "C" void s8_conv__scalar(const s8_conv_params* params, const int8_t* input,
                                const int8_t* weights, const int32_t* bias, int8_t* output,
                                void* scratch) {
  const s8_conv_params& p = *params;
  if (p.filter_in_c != p.in_c) {  // grouped convolution
    s8_conv__ref(params, input, weights, bias, output, nullptr);
    return;
  }
  const int32_t k = p.k_h * p.k_w * p.in_c;
  const uintptr_t base = (reinterpret_cast<uintptr_t>(scratch) + 3u) & ~uintptr_t{3};
  int16_t* ext = reinterpret_cast<int16_t*>(base);
  int8_t* patch = reinterpret_cast<int8_t*>(ext + 2 * k);
  switch (sc::ChooseMode<false>(p.shift, p.out_c, p.rounding)) {
    case sc::kRqDoubleNeg:
      Run<sc::kRqDoubleNeg>(p, input, weights, bias, output, ext, patch);
      break;
    case sc::kRqSingleNeg:
      Run<sc::kRqSingleNeg>(p, input, weights, bias, output, ext, patch);
      break;
    case sc::kRqSingle:
      Run<sc::kRqSingle>(p, input, weights, bias, output, ext, patch);
      break;
    default:
      Run<sc::kRqDouble>(p, input, weights, bias, output, ext, patch);
      break;
  }
}
