// mean-family rows of the kernel benchmark: global average pooling as the zoo models run it
// (MEAN over H, W of NHWC: ic 8x8x64, vww 3x3x256 (MobileNet), kws 25x5x64), a reduction
// over the last dim (inner 1), REDUCE_MAX over H, W; and pad (F.pad / same-padding shapes).
// macs = input elements.
#include "benchmarks/kernels/bench_harness.h"

namespace {

void MeanCase(tfb::Bench& b, int32_t outer, int32_t reduce, int32_t inner) {
  s8_mean_params p{};
  p.outer = outer, p.reduce_size = reduce, p.inner = inner;
  p.input_zero_point = -5, p.output_zero_point = 3;
  p.multiplier = 1431655765, p.shift = -6;
  const int32_t n = outer * reduce * inner;
  int8_t* in = b.Alloc<int8_t>(n);
  int8_t* out = b.Alloc<int8_t>(outer * inner);
  b.rng.Fill(in, n);
  b.macs = n;
  b.Run(&s8_mean__ref, [&](auto* fn) { fn(&p, in, out); });
}

void ReduceMaxCase(tfb::Bench& b, int32_t outer, int32_t reduce, int32_t inner) {
  s8_reduce_max_params p{outer, reduce, inner};
  const int32_t n = outer * reduce * inner;
  int8_t* in = b.Alloc<int8_t>(n);
  int8_t* out = b.Alloc<int8_t>(outer * inner);
  b.rng.Fill(in, n);
  b.macs = n;
  b.Run(&s8_reduce_max__ref, [&](auto* fn) { fn(&p, in, out); });
}

// [1, h, w, c] padded by `pad` on each side of H and W.
void PadCase(tfb::Bench& b, int32_t h, int32_t w, int32_t c, int32_t pad) {
  s8_pad_params p{};
  const int32_t dims[kS8PadMaxDims] = {1, 1, h, w, c};
  for (int d = 0; d < kS8PadMaxDims; ++d) p.input_dims[d] = dims[d];
  p.pad_before[2] = p.pad_after[2] = p.pad_before[3] = p.pad_after[3] = pad;
  p.pad_value = -7;
  const int32_t n_out = (h + 2 * pad) * (w + 2 * pad) * c;
  int8_t* in = b.Alloc<int8_t>(h * w * c);
  int8_t* out = b.Alloc<int8_t>(n_out);
  b.rng.Fill(in, h * w * c);
  b.macs = n_out;  // output elements
  b.Run(&s8_pad__ref, [&](auto* fn) { fn(&p, in, out); });
}

}  // namespace

TFB_CASE(mean, "mean 8x8x64 (ic global pool)", "") { MeanCase(b, 1, 64, 64); }
TFB_CASE(mean, "mean 3x3x256 (vww global pool)", "") { MeanCase(b, 1, 9, 256); }
TFB_CASE(mean, "mean 25x5x64 (kws global pool)", "") { MeanCase(b, 1, 125, 64); }
TFB_CASE(mean, "mean 7x7x576 (MobileNetV3 SE)", "") { MeanCase(b, 1, 49, 576); }
TFB_CASE(mean, "mean 5x5x10 (SqueezeNet classes)", "") { MeanCase(b, 1, 25, 10); }
TFB_CASE(mean, "mean over C 64x32 (inner 1)", "") { MeanCase(b, 64, 32, 1); }
TFB_CASE(reduce_max, "reduce_max 8x8x64", "") { ReduceMaxCase(b, 1, 64, 64); }
TFB_CASE(pad, "pad 16x16x32 +1", "") { PadCase(b, 16, 16, 32, 1); }
TFB_CASE(pad, "pad 28x28x8 +2", "") { PadCase(b, 28, 28, 8, 2); }
