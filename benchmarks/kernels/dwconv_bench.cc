// dwconv rows of the kernel benchmark: the zoo / MLPerf Tiny DEPTHWISE_CONV_2D layer shapes
// (3x3, depth multiplier 1). Anchors name the TFLM + CMSIS-NN per-op figure of the same layer.
#include "benchmarks/kernels/bench_harness.h"

namespace {

// SAME padding, TFLite style; padded layers carry input_offset 128 (zero point -128 after
// ReLU); out_h == 1 with a 3-row input is the runtime's streamed row.
void DwCase(tfb::Bench& b, int32_t in_h, int32_t in_w, int32_t c, int32_t stride,
            int32_t rounding = TF_ROUNDING_DOUBLE, bool streamed_row = false) {
  s8_dwconv_params p{};
  p.batches = 1;
  p.in_h = in_h;
  p.in_w = in_w;
  p.in_c = c;
  p.out_c = c;
  p.depth_multiplier = 1;
  p.k_h = p.k_w = 3;
  p.stride_h = p.stride_w = stride;
  p.dilation_h = p.dilation_w = 1;
  p.out_h = (in_h + stride - 1) / stride;
  p.out_w = (in_w + stride - 1) / stride;
  const int32_t th = (p.out_h - 1) * stride + 3 - in_h;
  const int32_t tw = (p.out_w - 1) * stride + 3 - in_w;
  p.pad_top = th > 0 ? th / 2 : 0;
  p.pad_left = tw > 0 ? tw / 2 : 0;
  if (streamed_row) {
    p.out_h = 1;
    p.pad_top = 0;
  }
  p.input_offset = 128;
  p.output_offset = -128;
  p.act_min = -128;
  p.act_max = 127;
  p.rounding = rounding;
  const int32_t n_in = in_h * in_w * c, n_w = 9 * c, n_out = p.out_h * p.out_w * c;
  int8_t* in = b.Alloc<int8_t>(n_in);
  int8_t* w = b.Alloc<int8_t>(n_w);
  int32_t* bias = b.Alloc<int32_t>(c);
  int32_t* mult = b.Alloc<int32_t>(c);
  int32_t* shift = b.Alloc<int32_t>(c);
  int8_t* out = b.Alloc<int8_t>(n_out);
  b.rng.Fill(in, n_in);
  b.rng.Fill(w, n_w, -127, 127);
  b.rng.FillInt32(bias, c, -20000, 20000);
  for (int32_t i = 0; i < c; ++i) tfv::RandomMultiplierIn(b.rng, &mult[i], &shift[i], -10, -4);
  p.multiplier = mult;
  p.shift = shift;
  b.macs = int64_t{n_out} * 9;
  void* scratch = b.Scratch(&p);
  b.Run(&s8_dwconv__ref, [&](auto* fn) { fn(&p, in, w, bias, out, scratch); });
}

}  // namespace

// DS-CNN (kws)
TFB_CASE(dwconv, "kws dw 25x5x64 s1", "kws:1") { DwCase(b, 25, 5, 64, 1); }
TFB_CASE(dwconv, "kws dw 25x5x64 s1 single-rounding", "kws:1") {
  DwCase(b, 25, 5, 64, 1, TF_ROUNDING_SINGLE);
}
TFB_CASE(dwconv, "kws dw 3x5x64 streamed row", "") {
  DwCase(b, 3, 5, 64, 1, TF_ROUNDING_DOUBLE, true);
}
// MobileNetV1-0.25 (vww)
TFB_CASE(dwconv, "vww dw 48x48x8 s1", "vww:1") { DwCase(b, 48, 48, 8, 1); }
TFB_CASE(dwconv, "vww dw 48x48x16 s2", "vww:3") { DwCase(b, 48, 48, 16, 2); }
TFB_CASE(dwconv, "vww dw 24x24x32 s1", "vww:5") { DwCase(b, 24, 24, 32, 1); }
TFB_CASE(dwconv, "vww dw 24x24x32 s2", "vww:7") { DwCase(b, 24, 24, 32, 2); }
TFB_CASE(dwconv, "vww dw 12x12x64 s1", "vww:9") { DwCase(b, 12, 12, 64, 1); }
TFB_CASE(dwconv, "vww dw 12x12x64 s2", "vww:11") { DwCase(b, 12, 12, 64, 2); }
TFB_CASE(dwconv, "vww dw 6x6x128 s1 (x5)", "vww:13") { DwCase(b, 6, 6, 128, 1); }
TFB_CASE(dwconv, "vww dw 6x6x128 s2", "vww:23") { DwCase(b, 6, 6, 128, 2); }
TFB_CASE(dwconv, "vww dw 3x3x256 s1", "vww:25") { DwCase(b, 3, 3, 256, 1); }
