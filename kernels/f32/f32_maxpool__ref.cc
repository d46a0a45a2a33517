// Portable reference float32 max pooling, NHWC: the largest tap inside the input (a NaN tap
// makes the output NaN, as in PyTorch).
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_scalar.h"

extern "C" TF_F32_NO_VECTORIZE void f32_maxpool__ref(const f32_pool_params* params, const float* x,
                                                     float* y) {
  const f32_pool_params& p = *params;
  for (int32_t b = 0; b < p.batches; ++b) {
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        for (int32_t c = 0; c < p.channels; ++c) {
          float best = 0.0f;
          bool first = true;
          for (int32_t ky = 0; ky < p.filter_h; ++ky) {
            const int32_t iy = oy * p.stride_h - p.pad_top + ky;
            if (iy < 0 || iy >= p.in_h) continue;
            for (int32_t kx = 0; kx < p.filter_w; ++kx) {
              const int32_t ix = ox * p.stride_w - p.pad_left + kx;
              if (ix < 0 || ix >= p.in_w) continue;
              const float v = x[((b * p.in_h + iy) * p.in_w + ix) * p.channels + c];
              if (first || v > best || v != v) best = v;  // once NaN, only NaN replaces it
              first = false;
            }
          }
          y[((b * p.out_h + oy) * p.out_w + ox) * p.channels + c] = best;
        }
      }
    }
  }
}
