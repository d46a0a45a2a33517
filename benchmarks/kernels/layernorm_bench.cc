// layernorm rows of the kernel benchmark: transformer-sized layer_norm / rms_norm rows
// (per-channel weight and bias, and the broadcast no-affine form).
#include "benchmarks/kernels/bench_harness.h"

namespace {

void LayerNormCase(tfb::Bench& b, int32_t rows, int32_t depth, bool rms, bool per_channel) {
  s8_layernorm_params p{};
  p.rows = rows;
  p.depth = depth;
  p.rms = rms ? 1 : 0;
  p.input_zero_point = -3;
  p.eps_lo = 1638 * depth * depth;  // eps 1e-5 at input scale 0.02, times depth^2 * 2^16
  p.scale_exp = 6;                  // weight / out_scale ~ 32 .. 64
  p.per_channel = per_channel ? 1 : 0;
  const int32_t channels = per_channel ? depth : 1;
  const int32_t n = rows * depth;
  int8_t* in = b.Alloc<int8_t>(n);
  int8_t* out = b.Alloc<int8_t>(n);
  int32_t* scale = b.Alloc<int32_t>(channels);
  int32_t* bias = b.Alloc<int32_t>(channels);
  b.rng.Fill(in, n);
  for (int32_t c = 0; c < channels; ++c) {
    scale[c] = 1200000000 + static_cast<int32_t>(b.rng.Next() >> 3);
    bias[c] = static_cast<int32_t>(b.rng.Next() >> 12) - (1 << 19);
  }
  p.scale = scale;
  p.bias = bias;
  b.macs = n;  // elements
  b.Run(&s8_layernorm__ref, [&](auto* fn) { fn(&p, in, out); });
}

}  // namespace

TFB_CASE(layernorm, "layer_norm 16x64", "") { LayerNormCase(b, 16, 64, false, true); }
TFB_CASE(layernorm, "layer_norm 32x64", "") { LayerNormCase(b, 32, 64, false, true); }
TFB_CASE(layernorm, "layer_norm 32x64 no affine", "") { LayerNormCase(b, 32, 64, false, false); }
TFB_CASE(layernorm, "layer_norm 4x256", "") { LayerNormCase(b, 4, 256, false, true); }
TFB_CASE(layernorm, "layer_norm 2x768", "") { LayerNormCase(b, 2, 768, false, true); }
TFB_CASE(layernorm, "layer_norm 4x256 no affine", "") { LayerNormCase(b, 4, 256, false, false); }
TFB_CASE(layernorm, "rms_norm 4x256", "") { LayerNormCase(b, 4, 256, true, true); }
