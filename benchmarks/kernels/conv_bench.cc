// conv rows of the kernel benchmark: the zoo / MLPerf Tiny CONV_2D layer shapes.
// Anchors name the TFLM + CMSIS-NN per-op figure (../shared/anchors) of the same layer.
#include "benchmarks/kernels/bench_harness.h"

namespace {

// SAME (pad = true) or VALID padding, TFLite style. input_offset: 0 for layers whose
// offset the compiler folds into the bias (unpadded), 128 (zero point -128, after ReLU)
// for padded ones.
void ConvCase(tfb::Bench& b, int32_t in_h, int32_t in_w, int32_t in_c, int32_t out_c,
              int32_t k_h, int32_t k_w, int32_t stride, bool same) {
  s8_conv_params p{};
  p.batches = 1;
  p.in_h = in_h;
  p.in_w = in_w;
  p.in_c = in_c;
  p.filter_in_c = in_c;
  p.out_c = out_c;
  p.k_h = k_h;
  p.k_w = k_w;
  p.stride_h = p.stride_w = stride;
  p.dilation_h = p.dilation_w = 1;
  if (same) {
    p.out_h = (in_h + stride - 1) / stride;
    p.out_w = (in_w + stride - 1) / stride;
    const int32_t th = (p.out_h - 1) * stride + k_h - in_h;
    const int32_t tw = (p.out_w - 1) * stride + k_w - in_w;
    p.pad_top = th > 0 ? th / 2 : 0;
    p.pad_left = tw > 0 ? tw / 2 : 0;
  } else {
    p.out_h = (in_h - k_h) / stride + 1;
    p.out_w = (in_w - k_w) / stride + 1;
  }
  const bool padded = same && (k_h > 1 || k_w > 1);
  p.input_offset = padded ? 128 : 0;
  p.output_offset = -128;
  p.act_min = -128;
  p.act_max = 127;
  p.rounding = TF_ROUNDING_DOUBLE;
  const int32_t n_in = in_h * in_w * in_c, n_w = out_c * k_h * k_w * in_c;
  const int32_t n_out = p.out_h * p.out_w * out_c;
  int8_t* in = b.Alloc<int8_t>(n_in);
  int8_t* w = b.Alloc<int8_t>(n_w);
  int32_t* bias = b.Alloc<int32_t>(out_c);
  int32_t* mult = b.Alloc<int32_t>(out_c);
  int32_t* shift = b.Alloc<int32_t>(out_c);
  int8_t* out = b.Alloc<int8_t>(n_out);
  b.rng.Fill(in, n_in);
  b.rng.Fill(w, n_w);
  b.rng.FillInt32(bias, out_c, -20000, 20000);
  for (int32_t c = 0; c < out_c; ++c) tfv::RandomMultiplierIn(b.rng, &mult[c], &shift[c], -10, -6);
  p.multiplier = mult;
  p.shift = shift;
  b.macs = int64_t{n_out} * k_h * k_w * in_c;
  void* scratch = b.Scratch(&p);
  b.Run(&s8_conv__ref, [&](auto* fn) { fn(&p, in, w, bias, out, scratch); });
}

}  // namespace

// DS-CNN (kws)
TFB_CASE(conv, "kws conv0 49x10x1 k10x4 s2 ->25x5x64", "kws:0") { ConvCase(b, 49, 10, 1, 64, 10, 4, 2, true); }
TFB_CASE(conv, "kws pw 25x5 64->64", "kws:2") { ConvCase(b, 25, 5, 64, 64, 1, 1, 1, false); }
// MobileNetV1-0.25 (vww)
TFB_CASE(conv, "vww conv0 96x96x3 k3 s2 ->48x48x8", "vww:0") { ConvCase(b, 96, 96, 3, 8, 3, 3, 2, true); }
TFB_CASE(conv, "vww pw 48x48 8->16", "vww:2") { ConvCase(b, 48, 48, 8, 16, 1, 1, 1, false); }
TFB_CASE(conv, "vww pw 24x24 16->32", "vww:4") { ConvCase(b, 24, 24, 16, 32, 1, 1, 1, false); }
TFB_CASE(conv, "vww pw 24x24 32->32", "vww:6") { ConvCase(b, 24, 24, 32, 32, 1, 1, 1, false); }
TFB_CASE(conv, "vww pw 12x12 64->64", "vww:10") { ConvCase(b, 12, 12, 64, 64, 1, 1, 1, false); }
TFB_CASE(conv, "vww pw 6x6 128->128", "vww:14") { ConvCase(b, 6, 6, 128, 128, 1, 1, 1, false); }
TFB_CASE(conv, "vww pw 3x3 256->256", "vww:26") { ConvCase(b, 3, 3, 256, 256, 1, 1, 1, false); }
// ResNet-8 (ic)
TFB_CASE(conv, "ic conv0 32x32x3 k3 ->16", "ic:0") { ConvCase(b, 32, 32, 3, 16, 3, 3, 1, true); }
TFB_CASE(conv, "ic 3x3 32x32 16->16", "ic:1") { ConvCase(b, 32, 32, 16, 16, 3, 3, 1, true); }
TFB_CASE(conv, "ic 3x3 s2 32x32 16->32", "ic:4") { ConvCase(b, 32, 32, 16, 32, 3, 3, 2, true); }
TFB_CASE(conv, "ic 3x3 16x16 32->32", "ic:5") { ConvCase(b, 16, 16, 32, 32, 3, 3, 1, true); }
TFB_CASE(conv, "ic 1x1 s2 32x32 16->32", "ic:6") { ConvCase(b, 32, 32, 16, 32, 1, 1, 2, true); }
TFB_CASE(conv, "ic 3x3 s2 16x16 32->64", "ic:8") { ConvCase(b, 16, 16, 32, 64, 3, 3, 2, true); }
TFB_CASE(conv, "ic 3x3 8x8 64->64", "ic:9") { ConvCase(b, 8, 8, 64, 64, 3, 3, 1, true); }
