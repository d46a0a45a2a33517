// Portable reference AVERAGE_POOL_2D (the oracle for every other avgpool variant).
#include "kernels/common/fixed_point.h"
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"

namespace fx = tinyforge::fx;

extern "C" void s8_avgpool__ref(const s8_pool_params* params, const int8_t* input, int8_t* output) {
  const s8_pool_params& p = *params;
  tinyforge::kernels::ForEachPoolWindow(
      p, input, output,
      [&](const int8_t* in, int32_t y0, int32_t y1, int32_t x0, int32_t x1, int8_t* out) {
        // Only taps inside the input count, as in TFLite.
        const int32_t count = (y1 - y0) * (x1 - x0);
        for (int32_t c = 0; c < p.channels; ++c) {
          int32_t acc = 0;
          for (int32_t y = y0; y < y1; ++y) {
            for (int32_t x = x0; x < x1; ++x) acc += in[(y * p.in_w + x) * p.channels + c];
          }
          // Round half away from zero; C++ division truncates toward zero.
          acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
          out[c] = static_cast<int8_t>(fx::Clamp(acc, p.act_min, p.act_max));
        }
      });
}
