// The output-pixel walk every pool variant shares (internal to kernels/pool): for each
// output pixel, in output order, the input window clipped to the input, [y0, y1) x [x0, x1)
// (TFLite counts only the taps inside the input), and where the pixel's channels go.
#ifndef TINYFORGE_KERNELS_POOL_POOL_WINDOWS_H_
#define TINYFORGE_KERNELS_POOL_POOL_WINDOWS_H_

#include "kernels/common/fixed_point.h"
#include "kernels/pool/pool.h"

namespace tinyforge::kernels {

// Calls pixel(in_batch, y0, y1, x0, x1, out_px) for every output pixel; in_batch is the
// input image of the pixel's batch, out_px its p.channels outputs.
template <typename F>
__attribute__((always_inline)) inline void ForEachPoolWindow(const s8_pool_params& p,
                                                             const int8_t* input,
                                                             int8_t* output, F&& pixel) {
  const int32_t C = p.channels;
  int8_t* out = output;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* in_batch = input + b * p.in_h * p.in_w * C;
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      const int32_t in_y0 = oy * p.stride_h - p.pad_top;
      const int32_t y0 = fx::Max(0, in_y0), y1 = fx::Min(p.in_h, in_y0 + p.filter_h);
      for (int32_t ox = 0; ox < p.out_w; ++ox, out += C) {
        const int32_t in_x0 = ox * p.stride_w - p.pad_left;
        const int32_t x0 = fx::Max(0, in_x0), x1 = fx::Min(p.in_w, in_x0 + p.filter_w);
        pixel(in_batch, y0, y1, x0, x1, out);
      }
    }
  }
}

// True when every window lies inside the input (no padding reaches it, so no clipping):
// the pool variants' unclipped fast paths (1-D pools of sequence models, valid 2x2 pools).
inline bool WindowsInside(const s8_pool_params& p) {
  return p.pad_top == 0 && p.pad_left == 0 &&
         (p.out_h - 1) * p.stride_h + p.filter_h <= p.in_h &&
         (p.out_w - 1) * p.stride_w + p.filter_w <= p.in_w;
}

}  // namespace tinyforge::kernels

#endif  // TINYFORGE_KERNELS_POOL_POOL_WINDOWS_H_
