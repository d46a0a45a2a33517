// Portable reference AVERAGE_POOL_2D (the oracle for every other avgpool variant).
#include "kernels/common/fixed_point.h"
#include "kernels/pool/pool.h"

namespace fx = tinyforge::fx;

extern "C" void s8_avgpool__ref(const s8_pool_params* params, const int8_t* input, int8_t* output) {
  const s8_pool_params& p = *params;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* in_batch = input + b * p.in_h * p.in_w * p.channels;
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      const int32_t in_y0 = oy * p.stride_h - p.pad_top;
      const int32_t fy_begin = fx::Max(0, -in_y0);
      const int32_t fy_end = fx::Min(p.filter_h, p.in_h - in_y0);
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        const int32_t in_x0 = ox * p.stride_w - p.pad_left;
        const int32_t fx_begin = fx::Max(0, -in_x0);
        const int32_t fx_end = fx::Min(p.filter_w, p.in_w - in_x0);
        // Only taps inside the input count, as in TFLite.
        const int32_t count = (fy_end - fy_begin) * (fx_end - fx_begin);
        int8_t* out_px = output + ((b * p.out_h + oy) * p.out_w + ox) * p.channels;
        for (int32_t c = 0; c < p.channels; ++c) {
          int32_t acc = 0;
          for (int32_t fy = fy_begin; fy < fy_end; ++fy) {
            for (int32_t fxi = fx_begin; fxi < fx_end; ++fxi) {
              acc += in_batch[((in_y0 + fy) * p.in_w + in_x0 + fxi) * p.channels + c];
            }
          }
          // Round half away from zero; C++ division truncates toward zero.
          acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
          out_px[c] = static_cast<int8_t>(fx::Clamp(acc, p.act_min, p.act_max));
        }
      }
    }
  }
}
