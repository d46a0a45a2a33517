// Portable reference LAYER_NORM / RMS_NORM (the oracle for every other layernorm variant).
#include "kernels/layernorm/layernorm.h"
#include "kernels/layernorm/layernorm_row.h"

namespace ln = tinyforge::layernorm;

extern "C" void s8_layernorm__ref(const s8_layernorm_params* params, const int8_t* input,
                                  int8_t* output) {
  const s8_layernorm_params& p = *params;
  const int32_t lsh = ln::Headroom(p.depth);
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * p.depth;
    int8_t* out = output + r * p.depth;
    int32_t sum = 0, sumsq = 0;
    for (int32_t c = 0; c < p.depth; ++c) {
      sum += in[c];
      sumsq += in[c] * in[c];
    }
    const ln::Row row = ln::RowOf(p, lsh, sum, sumsq);
    for (int32_t c = 0; c < p.depth; ++c) {
      const int32_t k = p.per_channel ? c : 0;
      out[c] = ln::Element(row, in[c], p.scale[k], p.bias[k]);
    }
  }
}
