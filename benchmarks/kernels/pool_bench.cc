// pool rows of the kernel benchmark: the global average pools of the MLPerf Tiny models and a
// 2x2 stride-2 max/avg pool.
#include "benchmarks/kernels/bench_harness.h"

namespace {

void PoolCase(tfb::Bench& b, void (*ref)(const s8_pool_params*, const int8_t*, int8_t*), int32_t h,
              int32_t w, int32_t c, int32_t f, int32_t stride) {
  s8_pool_params p{};
  p.batches = 1;
  p.in_h = h;
  p.in_w = w;
  p.channels = c;
  p.filter_h = f == 0 ? h : f;
  p.filter_w = f == 0 ? w : f;
  p.stride_h = p.stride_w = stride;
  p.out_h = (h - p.filter_h) / stride + 1;
  p.out_w = (w - p.filter_w) / stride + 1;
  p.act_min = -128;
  p.act_max = 127;
  const int32_t n_in = h * w * c, n_out = p.out_h * p.out_w * c;
  int8_t* in = b.Alloc<int8_t>(n_in);
  int8_t* out = b.Alloc<int8_t>(n_out);
  b.rng.Fill(in, n_in);
  b.macs = n_in;  // elements read
  b.Run(ref, [&](auto* fn) { fn(&p, in, out); });
}

}  // namespace

TFB_CASE(avgpool, "kws avgpool 25x5x64 global", "kws:9") {
  PoolCase(b, &s8_avgpool__ref, 25, 5, 64, 0, 1);
}
TFB_CASE(avgpool, "vww avgpool 3x3x256 global", "vww:27") {
  PoolCase(b, &s8_avgpool__ref, 3, 3, 256, 0, 1);
}
TFB_CASE(avgpool, "ic avgpool 8x8x64 global", "ic:12") {
  PoolCase(b, &s8_avgpool__ref, 8, 8, 64, 0, 1);
}
TFB_CASE(avgpool, "avgpool 16x16x32 2x2 s2", "") {
  PoolCase(b, &s8_avgpool__ref, 16, 16, 32, 2, 2);
}
TFB_CASE(maxpool, "maxpool 16x16x32 2x2 s2", "") {
  PoolCase(b, &s8_maxpool__ref, 16, 16, 32, 2, 2);
}
TFB_CASE(maxpool, "maxpool 25x5x64 global", "") { PoolCase(b, &s8_maxpool__ref, 25, 5, 64, 0, 1); }
