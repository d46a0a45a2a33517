// CONV_2D for Cortex-M4/M7/M33 (DSP extension). Bit-identical to s8_conv__ref.
//
// Pixels in tiles of up to 8 (s8_conv_dsp_pairs pairs): each pixel's column (its input channels for an unpadded 1x1 convolution,
// otherwise an im2col patch with padded taps at the zero point) is widened once to int16
// pairs with the input offset added (kernels/conv/dsp_gemm.h), then every channel pair's
// weights stream past the tile's columns: 2 x 2 blocks of SMLADs. Grouped convolutions (rare)
// run the reference loop (s8_conv__ref).
//
// Scratch (conv.inc): s8_conv_dsp_pairs(p) pairs of widened columns (16 * ceil(K / 4) bytes
// each), one int8 patch (K bytes), alignment.
#include "kernels/conv/conv.h"

#if defined(__ARM_FEATURE_DSP)

#include "kernels/conv/dsp_gemm.h"

namespace {

namespace dsp = tinyforge::dsp;

// The int8 im2col patch of output pixel (b, oy, ox), taps outside the input = zero point.
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

template <int kMode, bool kFull>
void Run(const s8_conv_params& p, const int8_t* input, const int8_t* weights, const int32_t* bias,
         int8_t* output, uint32_t* ext, int8_t* patch) {
  const int32_t k = p.k_h * p.k_w * p.in_c;
  const bool direct = s8_conv_is_direct(p);
  const int8_t zp = static_cast<int8_t>(-p.input_offset);
  const dsp::OutQ oq{p.output_offset, p.act_min, p.act_max};
  const int32_t plane = p.out_h * p.out_w;
  const int32_t total = p.batches * plane;
  const int32_t pair_words = 4 * ((k + 3) >> 2);
  const int32_t tile = 2 * s8_conv_dsp_pairs(p);
  int32_t b = 0, oy = 0, ox = 0;  // the next pixel to widen
  for (int32_t n = 0; n < total; n += tile) {
    const int32_t np = total - n < tile ? total - n : tile;
    for (int32_t j = 0; j < np; ++j) {
      const int8_t* in_b = input + b * p.in_h * p.in_w * p.in_c;
      const int8_t* src;
      if (direct) {
        src = in_b + ((oy * p.stride_h) * p.in_w + ox * p.stride_w) * p.in_c;
      } else {
        Patch(p, in_b, oy, ox, zp, patch);
        src = patch;
      }
      dsp::Widen(src, k, p.input_offset, ext + (j >> 1) * pair_words + 2 * (j & 1));
      if (++ox == p.out_w) {
        ox = 0;
        if (++oy == p.out_h) {
          oy = 0;
          ++b;
        }
      }
    }
    dsp::TileN<kMode, kFull>(ext, pair_words, np, weights, k, bias, p.multiplier, p.shift,
                             p.out_c, oq, output + n * p.out_c);
  }
}

struct Call {
  const s8_conv_params& p;
  const int8_t* input;
  const int8_t* weights;
  const int32_t* bias;
  int8_t* output;
  uint32_t* ext;
  int8_t* patch;
  template <int kMode, bool kFull>
  void operator()() const {
    Run<kMode, kFull>(p, input, weights, bias, output, ext, patch);
  }
};

}  // namespace

extern "C" void s8_conv__dsp(const s8_conv_params* params, const int8_t* input,
                             const int8_t* weights, const int32_t* bias, int8_t* output,
                             void* scratch) {
  const s8_conv_params& p = *params;
  if (p.filter_in_c != p.in_c) {  // grouped convolution
    s8_conv__ref(params, input, weights, bias, output, nullptr);
    return;
  }
  const int32_t k = p.k_h * p.k_w * p.in_c;
  const int32_t words = s8_conv_dsp_pairs(p) * 4 * ((k + 3) >> 2);  // widened column pairs
  const uintptr_t base = (reinterpret_cast<uintptr_t>(scratch) + 7u) & ~uintptr_t{7};
  uint32_t* ext = reinterpret_cast<uint32_t*>(base);
  int8_t* patch = reinterpret_cast<int8_t*>(ext + words);
  dsp::Dispatch(p.shift, p.out_c, p.rounding, p.act_min, p.act_max,
                Call{p, input, weights, bias, output, ext, patch});
}

#endif  // __ARM_FEATURE_DSP
