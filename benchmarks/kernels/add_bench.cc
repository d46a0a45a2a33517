// add rows of the kernel benchmark: the ResNet-8 residual adds (elementwise), and a small
// MobileNetV3-Small residual add (single rounding, as the breadth models); "linear": with
// the linear form the compiler proves exact for these parameters (kernels/add/add_linear.h,
// found here by the same search, outside the measured call).
#include "benchmarks/kernels/bench_harness.h"
#include "kernels/add/add_linear.h"

namespace {

void AddCase(tfb::Bench& b, int32_t n, int32_t rounding, bool linear = false) {
  s8_add_params p{};
  for (int d = 0; d < kS8BroadcastMaxDims; ++d) p.shape.out_dims[d] = 1;
  p.shape.out_dims[5] = n;
  p.shape.in1_strides[5] = p.shape.in2_strides[5] = 1;
  p.input1_offset = 128;
  p.input2_offset = 5;
  p.left_shift = 20;
  p.input1_multiplier = 1 << 30;
  p.input1_shift = 0;
  p.input2_multiplier = 1561234567;
  p.input2_shift = -1;
  p.output_multiplier = 1398765432;
  p.output_shift = -18;
  p.output_offset = -128;
  p.act_min = -128;
  p.act_max = 127;
  p.rounding = rounding;
  if (linear) {
    static int8_t table[65536];
    tinyforge::add_linear::FindLinear<false>(&p, table);  // (not found: the rows show it)
  }
  b.RunBinary(&s8_add__ref, p, n, n, n);
}

}  // namespace

TFB_CASE(add, "ic add 32x32x16", "ic:3") { AddCase(b, 32 * 32 * 16, TF_ROUNDING_DOUBLE); }
TFB_CASE(add, "ic add 16x16x32", "ic:7") { AddCase(b, 16 * 16 * 32, TF_ROUNDING_DOUBLE); }
TFB_CASE(add, "ic add 8x8x64", "ic:11") { AddCase(b, 8 * 8 * 64, TF_ROUNDING_DOUBLE); }
TFB_CASE(add, "ic add 32x32x16 single-rounding", "ic:3") {
  AddCase(b, 32 * 32 * 16, TF_ROUNDING_SINGLE);
}
TFB_CASE(add, "mv3s add 6x6x24 single-rounding", "-") {
  AddCase(b, 6 * 6 * 24, TF_ROUNDING_SINGLE);
}
TFB_CASE(add, "ic add 32x32x16 linear", "ic:3") {
  AddCase(b, 32 * 32 * 16, TF_ROUNDING_DOUBLE, true);
}
TFB_CASE(add, "mv3s add 6x6x24 linear", "-") { AddCase(b, 6 * 6 * 24, TF_ROUNDING_SINGLE, true); }
