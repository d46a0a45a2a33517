// Portable reference MAX_POOL_2D (the oracle for every other maxpool variant).
#include "kernels/common/fixed_point.h"
#include "kernels/pool/pool.h"

namespace fx = tinyforge::fx;

extern "C" void s8_maxpool__ref(const s8_pool_params* params, const int8_t* input, int8_t* output) {
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
        int8_t* out_px = output + ((b * p.out_h + oy) * p.out_w + ox) * p.channels;
        for (int32_t c = 0; c < p.channels; ++c) {
          int32_t max = -128;
          for (int32_t fy = fy_begin; fy < fy_end; ++fy) {
            for (int32_t fxi = fx_begin; fxi < fx_end; ++fxi) {
              max = fx::Max(max, in_batch[((in_y0 + fy) * p.in_w + in_x0 + fxi) * p.channels + c]);
            }
          }
          out_px[c] = static_cast<int8_t>(fx::Clamp(max, p.act_min, p.act_max));
        }
      }
    }
  }
}
