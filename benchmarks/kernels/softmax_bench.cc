// softmax rows of the kernel benchmark: the classifier heads of the MLPerf Tiny models
// (one row each: kws 12 classes, vww 2, ic 10), longer / multi-row cases and the attention
// scores of the 2-layer encoder (tests/e2e/test_attention.py: 4 heads x 32 queries x 32 keys).
#include "benchmarks/kernels/bench_harness.h"

namespace {

// Logit scale ~0.17 at beta 1 (real multiplier 0.17 * 2^26 = 0.68 * 2^24): shift 24.
void SoftmaxCase(tfb::Bench& b, int32_t rows, int32_t depth) {
  s8_softmax_params p{};
  p.rows = rows;
  p.depth = depth;
  p.input_multiplier = 1460288881;  // 0.68 in Q31
  p.input_left_shift = 24;
  p.diff_min = -static_cast<int32_t>((int64_t{31} << 26) >> p.input_left_shift);
  const int32_t n = rows * depth;
  int8_t* in = b.Alloc<int8_t>(n);
  int8_t* out = b.Alloc<int8_t>(n);
  b.rng.Fill(in, n);
  b.macs = n;  // elements
  void* scratch = b.Scratch(&p);
  b.Run(&s8_softmax__ref, [&](auto* fn) { fn(&p, in, out, scratch); });
}

}  // namespace

TFB_CASE(softmax, "kws softmax 1x12", "kws:12") { SoftmaxCase(b, 1, 12); }
TFB_CASE(softmax, "vww softmax 1x2", "vww:30") { SoftmaxCase(b, 1, 2); }
TFB_CASE(softmax, "ic softmax 1x10", "ic:15") { SoftmaxCase(b, 1, 10); }
TFB_CASE(softmax, "softmax 8x100", "") { SoftmaxCase(b, 8, 100); }
// Around the exp table's thresholds (softmax.h kSoftmaxTableMin*).
TFB_CASE(softmax, "softmax 8x32", "") { SoftmaxCase(b, 8, 32); }
TFB_CASE(softmax, "softmax 16x32", "") { SoftmaxCase(b, 16, 32); }
TFB_CASE(softmax, "attention scores 128x32", "") { SoftmaxCase(b, 128, 32); }
