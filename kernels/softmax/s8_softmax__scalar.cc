// SOFTMAX for Cortex-M0/M3 (plain C++): the shared fast core (softmax_fast.h: one exp per
// element, 64-bit floor-form SRDHM, sign-aware rounding shifts), bit-exact with __ref.
#include "kernels/softmax/softmax_fast.h"

extern "C" void s8_softmax__scalar(const s8_softmax_params* params, const int8_t* input,
                                   int8_t* output) {
  const s8_softmax_params& p = *params;
  const int32_t depth = p.depth;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    int32_t max_in_row = in[0];
    for (int32_t c = 1; c < depth; ++c) max_in_row = in[c] > max_in_row ? in[c] : max_in_row;
    tinyforge::softmax_fast::Row(p, in, output + r * depth, max_in_row);
  }
}
