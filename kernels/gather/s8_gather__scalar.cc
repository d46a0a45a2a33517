// GATHER for any core, bit-identical to s8_gather__ref: one memcpy per gathered row.
#include "kernels/gather/gather.h"

extern "C" void s8_gather__scalar(const s8_gather_params* params, const int8_t* input,
                                  const int32_t* indices, int8_t* output) {
  const s8_gather_params& p = *params;
  const uint32_t row = static_cast<uint32_t>(p.inner);
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* base = input + o * p.axis_size * p.inner;
    for (int32_t c = 0; c < p.count; ++c, output += p.inner) {
      const int32_t k = indices[c] < 0 ? indices[c] + p.axis_size : indices[c];
      __builtin_memcpy(output, base + k * p.inner, row);
    }
  }
}
