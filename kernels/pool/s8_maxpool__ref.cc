// Portable reference MAX_POOL_2D (the oracle for every other maxpool variant).
#include "kernels/common/fixed_point.h"
#include "kernels/pool/pool.h"
#include "kernels/pool/pool_windows.h"

namespace fx = tinyforge::fx;

extern "C" void s8_maxpool__ref(const s8_pool_params* params, const int8_t* input, int8_t* output) {
  const s8_pool_params& p = *params;
  tinyforge::kernels::ForEachPoolWindow(
      p, input, output,
      [&](const int8_t* in, int32_t y0, int32_t y1, int32_t x0, int32_t x1, int8_t* out) {
        for (int32_t c = 0; c < p.channels; ++c) {
          int32_t max = -128;
          for (int32_t y = y0; y < y1; ++y) {
            for (int32_t x = x0; x < x1; ++x) {
              max = fx::Max(max, in[(y * p.in_w + x) * p.channels + c]);
            }
          }
          out[c] = static_cast<int8_t>(fx::Clamp(max, p.act_min, p.act_max));
        }
      });
}
