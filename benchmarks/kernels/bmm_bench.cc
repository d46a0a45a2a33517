// bmm rows of the kernel benchmark: attention-shaped products of two int8 activations
// (q k^T reads k as stored, adj_y; scores @ v transposes v into scratch).
#include "benchmarks/kernels/bench_harness.h"

namespace {

void BmmCase(tfb::Bench& b, int32_t batches, int32_t m, int32_t k, int32_t n, bool adj_y,
             int32_t rounding = TF_ROUNDING_DOUBLE) {
  s8_bmm_params p{};
  p.batches = p.lhs_batches = p.rhs_batches = batches;
  p.rows = m;
  p.depth = k;
  p.cols = n;
  p.rhs_transposed = adj_y ? 1 : 0;
  p.lhs_offset = 7;
  p.rhs_offset = -3;
  p.output_offset = -5;
  p.act_min = -128;
  p.act_max = 127;
  p.rounding = rounding;
  tfv::RandomMultiplierIn(b.rng, &p.multiplier, &p.shift, -10, -6);
  int8_t* lhs = b.Alloc<int8_t>(batches * m * k);
  int8_t* rhs = b.Alloc<int8_t>(batches * k * n);
  int8_t* out = b.Alloc<int8_t>(batches * m * n);
  b.rng.Fill(lhs, batches * m * k);
  b.rng.Fill(rhs, batches * k * n);
  b.macs = int64_t{batches} * m * k * n;
  void* scratch = b.Scratch(&p);
  b.Run(&s8_bmm__ref, [&](auto* fn) { fn(&p, lhs, rhs, out, scratch); });
}

}  // namespace

TFB_CASE(bmm, "q k^T 2 heads 32x32 d32 (adj_y)", "") { BmmCase(b, 2, 32, 32, 32, true); }
TFB_CASE(bmm, "scores @ v 2 heads 32x32 d32", "") { BmmCase(b, 2, 32, 32, 32, false); }
TFB_CASE(bmm, "q k^T 4 heads 16x16 d16 (adj_y)", "") { BmmCase(b, 4, 16, 16, 16, true); }
TFB_CASE(bmm, "q k^T 1 head 64x64 d64 (adj_y)", "") { BmmCase(b, 1, 64, 64, 64, true); }
// transformer_encoder's attention (benchmarks/RESULTS.md "Sequence models"; PyTorch graphs
// requantize with single rounding): scores q k^T (k^T stored [16, 32], as the model's graph
// gives it) and context p v per head.
TFB_CASE(bmm, "scores 4 heads 32x32 d16 single", "") {
  BmmCase(b, 4, 32, 16, 32, false, TF_ROUNDING_SINGLE);
}
TFB_CASE(bmm, "context 4 heads 32x16 d32 single", "") {
  BmmCase(b, 4, 32, 32, 16, false, TF_ROUNDING_SINGLE);
}
