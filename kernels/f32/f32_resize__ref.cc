// Portable reference float32 bilinear resize of NHWC from a coordinate table (lo, hi, w per
// output row, then per output column): IEEE float32, the host executor's float formula.
#include <cstring>

#include "kernels/f32/f32.h"
#include "kernels/f32/f32_scalar.h"

extern "C" TF_F32_NO_VECTORIZE void f32_resize__ref(const f32_resize_params* params,
                                                    const float* x, const int32_t* table,
                                                    float* y) {
  const f32_resize_params& p = *params;
  auto weight = [](int32_t bits) {
    float w;
    std::memcpy(&w, &bits, sizeof w);
    return w;
  };
  const int32_t* cols = table + 3 * p.output_h;
  for (int32_t b = 0; b < p.batches; ++b) {
    const float* in = x + b * p.input_h * p.input_w * p.channels;
    for (int32_t i = 0; i < p.output_h; ++i) {
      const int32_t* ty = table + 3 * i;
      const float wy = weight(ty[2]);
      const float* r0 = in + ty[0] * p.input_w * p.channels;
      const float* r1 = in + ty[1] * p.input_w * p.channels;
      for (int32_t j = 0; j < p.output_w; ++j) {
        const int32_t* tx = cols + 3 * j;
        const float wx = weight(tx[2]);
        const int32_t c0 = tx[0] * p.channels, c1 = tx[1] * p.channels;
        float* out = y + ((b * p.output_h + i) * p.output_w + j) * p.channels;
        for (int32_t c = 0; c < p.channels; ++c) {
          const float top = r0[c0 + c] * (1.0f - wx) + r0[c1 + c] * wx;
          const float bot = r1[c0 + c] * (1.0f - wx) + r1[c1 + c] * wx;
          out[c] = top * (1.0f - wy) + bot * wy;
        }
      }
    }
  }
}
