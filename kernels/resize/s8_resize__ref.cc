// Portable reference RESIZE (the oracle for every other resize variant): each output
// element computed on its own as resize.h states it.
#include "kernels/resize/resize.h"

extern "C" void s8_resize__ref(const s8_resize_params* params, const int8_t* input,
                               const int32_t* table, int8_t* output) {
  const s8_resize_params& p = *params;
  const int32_t* cols = table + 3 * p.output_h;
  const int32_t one = TF_RESIZE_ONE;
  auto at = [&](int32_t b, int32_t y, int32_t x, int32_t c) -> int32_t {
    return input[((b * p.input_h + y) * p.input_w + x) * p.channels + c];
  };
  int8_t* out = output;
  for (int32_t b = 0; b < p.batches; ++b) {
    for (int32_t y = 0; y < p.output_h; ++y) {
      const int32_t y0 = table[3 * y], y1 = table[3 * y + 1], wy = table[3 * y + 2];
      for (int32_t x = 0; x < p.output_w; ++x) {
        const int32_t x0 = cols[3 * x], x1 = cols[3 * x + 1], wx = cols[3 * x + 2];
        for (int32_t c = 0; c < p.channels; ++c) {
          if (!p.bilinear) {
            *out++ = static_cast<int8_t>(at(b, y0, x0, c));
            continue;
          }
          const int32_t s = at(b, y0, x0, c) * (one - wy) * (one - wx) +
                            at(b, y1, x0, c) * wy * (one - wx) +
                            at(b, y0, x1, c) * (one - wy) * wx + at(b, y1, x1, c) * wy * wx;
          const int32_t round = s > 0 ? (1 << 19) : -(1 << 19);
          *out++ = static_cast<int8_t>((s + round) / (1 << 20));
        }
      }
    }
  }
}
