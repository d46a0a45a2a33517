// Portable reference float32 average pooling, NHWC: the float32 sum of the taps inside the
// input (row by row), divided by their count (PyTorch's count_include_pad=False; an unpadded
// window counts all its taps). The sums and the division in the standard mode (f32_arith.h).
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_arith.h"
#include "kernels/f32/f32_scalar.h"

extern "C" TF_F32_NO_VECTORIZE void f32_avgpool__ref(const f32_pool_params* params, const float* x,
                                                     float* y) {
  const f32_pool_params& p = *params;
  using namespace tinyforge::kernels::f32;
  const StandardFpscr mode;
  for (int32_t b = 0; b < p.batches; ++b) {
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        for (int32_t c = 0; c < p.channels; ++c) {
          float sum = 0.0f;
          int32_t count = 0;
          for (int32_t ky = 0; ky < p.filter_h; ++ky) {
            const int32_t iy = oy * p.stride_h - p.pad_top + ky;
            if (iy < 0 || iy >= p.in_h) continue;
            for (int32_t kx = 0; kx < p.filter_w; ++kx) {
              const int32_t ix = ox * p.stride_w - p.pad_left + kx;
              if (ix < 0 || ix >= p.in_w) continue;
              sum = Add(sum, x[((b * p.in_h + iy) * p.in_w + ix) * p.channels + c]);
              ++count;
            }
          }
          y[((b * p.out_h + oy) * p.out_w + ox) * p.channels + c] = DivByCount(sum, count);
        }
      }
    }
  }
}
