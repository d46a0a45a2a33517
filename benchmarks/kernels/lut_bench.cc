// lut rows of the kernel benchmark: table lookups (every int8 activation of one input:
// logistic, tanh, hard-swish, SiLU, GELU, ...) on an EfficientNet-style block's activation
// sizes, and the logistic kernel they replace, for comparison.
#include "benchmarks/kernels/bench_harness.h"

namespace {

void LutCase(tfb::Bench& b, int32_t n) {
  s8_lut_params p{};
  p.size = n;
  int8_t* table = b.Alloc<int8_t>(TF_LUT_ENTRIES);
  int8_t* in = b.Alloc<int8_t>(n);
  int8_t* out = b.Alloc<int8_t>(n);
  b.rng.Fill(table, TF_LUT_ENTRIES);
  b.rng.Fill(in, n);
  b.macs = n;  // elements
  b.Run(&s8_lut__ref, [&](auto* fn) { fn(&p, in, table, out); });
}

// Input scale ~0.05 (Q4.27 multiplier 0.05 * 2^27 = 0.8 * 2^23: shift 23).
void LogisticCase(tfb::Bench& b, int32_t n) {
  s8_logistic_params p{};
  p.size = n;
  p.input_zero_point = -10;
  p.input_multiplier = 1717986918;  // 0.8 in Q31
  p.input_left_shift = 23;
  p.input_range_radius = 127;
  int8_t* in = b.Alloc<int8_t>(n);
  int8_t* out = b.Alloc<int8_t>(n);
  b.rng.Fill(in, n);
  b.macs = n;  // elements
  b.Run(&s8_logistic__ref, [&](auto* fn) { fn(&p, in, out); });
}

}  // namespace

TFB_CASE(lut, "lut 16x16x32", "") { LutCase(b, 16 * 16 * 32); }
TFB_CASE(lut, "lut 8x8x96", "") { LutCase(b, 8 * 8 * 96); }
TFB_CASE(lut, "lut 37", "") { LutCase(b, 37); }
TFB_CASE(logistic, "logistic 8x8x96 (replaced by lut)", "") { LogisticCase(b, 8 * 8 * 96); }
