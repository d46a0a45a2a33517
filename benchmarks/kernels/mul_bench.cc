// mul rows of the kernel benchmark (and sub, maximum): squeeze-and-excitation scaling
// (per-channel broadcast, MobileNetV3 / EfficientNet shapes), an elementwise product
// (SiLU's x * sigmoid(x)), a scalar product (Rescaling), an elementwise sub and maximum.
#include "benchmarks/kernels/bench_harness.h"

namespace {

// rows x ch outputs; `kind`: 0 elementwise, 1 input 2 per channel [ch], 2 input 2 a scalar.
s8_broadcast_shape Shape(int32_t rows, int32_t ch, int kind) {
  s8_broadcast_shape s{};
  for (int d = 0; d < kS8BroadcastMaxDims; ++d) s.out_dims[d] = 1;
  s.out_dims[4] = rows;
  s.out_dims[5] = ch;
  s.in1_strides[4] = ch;
  s.in1_strides[5] = 1;
  s.in2_strides[4] = kind == 0 ? ch : 0;
  s.in2_strides[5] = kind == 2 ? 0 : 1;
  return s;
}

void MulCase(tfb::Bench& b, int32_t rows, int32_t ch, int kind,
             int32_t rounding = TF_ROUNDING_DOUBLE) {
  s8_mul_params p{};
  p.shape = Shape(rows, ch, kind);
  p.input1_offset = 3;
  p.input2_offset = 128;  // a sigmoid output: zero point -128
  p.output_multiplier = 1466894720;
  p.output_shift = -8;
  p.output_offset = -7;
  p.act_min = -128;
  p.act_max = 127;
  p.rounding = rounding;
  const int32_t n = rows * ch;
  const int32_t n2 = kind == 0 ? n : (kind == 1 ? ch : 1);
  b.RunBinary(&s8_mul__ref, p, n, n2, n);
}

}  // namespace

TFB_CASE(mul, "se mul 28x28x72 * [72]", "-") { MulCase(b, 28 * 28, 72, 1); }
TFB_CASE(mul, "se mul 14x14x96 * [96]", "-") { MulCase(b, 14 * 14, 96, 1); }
TFB_CASE(mul, "se mul 7x7x576 * [576]", "-") { MulCase(b, 7 * 7, 576, 1); }
TFB_CASE(mul, "silu mul 16x16x32 elementwise", "-") { MulCase(b, 16 * 16, 32, 0); }
TFB_CASE(mul, "mv3s se mul 6x6x120 * [120] single-rounding", "-") {
  MulCase(b, 6 * 6, 120, 1, TF_ROUNDING_SINGLE);
}
TFB_CASE(mul, "mv3s se mul 24x24x8 * [8] single-rounding", "-") {
  MulCase(b, 24 * 24, 8, 1, TF_ROUNDING_SINGLE);
}
TFB_CASE(mul, "mv3s se mul 6x6x48 * [48] single-rounding", "-") {
  MulCase(b, 6 * 6, 48, 1, TF_ROUNDING_SINGLE);
}
TFB_CASE(mul, "mv3s se mul 3x3x144 * [144] single-rounding", "-") {
  MulCase(b, 3 * 3, 144, 1, TF_ROUNDING_SINGLE);
}
TFB_CASE(mul, "mv3s se mul 3x3x288 * [288] single-rounding", "-") {
  MulCase(b, 3 * 3, 288, 1, TF_ROUNDING_SINGLE);
}
TFB_CASE(mul, "se mul 28x28x72 * [72] single-rounding", "-") {
  MulCase(b, 28 * 28, 72, 1, TF_ROUNDING_SINGLE);
}
TFB_CASE(mul, "silu mul 16x16x32 single-rounding", "-") {
  MulCase(b, 16 * 16, 32, 0, TF_ROUNDING_SINGLE);
}
TFB_CASE(mul, "rescale mul 32x32x3 * scalar", "-") { MulCase(b, 32 * 32, 3, 2); }

TFB_CASE(sub, "sub 16x16x32 elementwise", "-") {
  const int32_t n = 16 * 16 * 32;
  s8_add_params p{};
  p.shape = Shape(16 * 16, 32, 0);
  p.input1_offset = 128;
  p.input2_offset = 5;
  p.left_shift = 20;
  p.input1_multiplier = 1 << 30;
  p.input2_multiplier = 1561234567;
  p.input2_shift = -1;
  p.output_multiplier = 1398765432;
  p.output_shift = -18;
  p.output_offset = -128;
  p.act_min = -128;
  p.act_max = 127;
  b.RunBinary(&s8_sub__ref, p, n, n, n);
}

TFB_CASE(maximum, "maximum 16x16x32 elementwise", "-") {
  const int32_t n = 16 * 16 * 32;
  s8_minmax_params p{Shape(16 * 16, 32, 0)};
  b.RunBinary(&s8_maximum__ref, p, n, n, n);
}
