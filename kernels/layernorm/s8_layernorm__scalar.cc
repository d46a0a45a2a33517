// LAYER_NORM / RMS_NORM for Cortex-M0/M3 (plain C++), bit-identical to s8_layernorm__ref:
// the row constants of layernorm_row.h; rows whose output shift is all taken out of t (the
// common case) skip ShiftR; broadcast scale / bias hoisted.
#include "kernels/layernorm/layernorm.h"
#include "kernels/layernorm/layernorm_row.h"

namespace ln = tinyforge::layernorm;

extern "C" void s8_layernorm__scalar(const s8_layernorm_params* params, const int8_t* input,
                                     int8_t* output) {
  const s8_layernorm_params& p = *params;
  const int32_t depth = p.depth;
  const int32_t lsh = ln::Headroom(depth);
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    int8_t* out = output + r * depth;
    int32_t sum = 0, sumsq = 0;
    for (int32_t c = 0; c < depth; ++c) {
      const int32_t q = in[c];
      sum += q;
      sumsq += q * q;
    }
    const ln::Row row = ln::RowOf(p, lsh, sum, sumsq);
    if (row.shift != 0) {
      for (int32_t c = 0; c < depth; ++c) {
        const int32_t k = p.per_channel ? c : 0;
        out[c] = ln::Element(row, in[c], p.scale[k], p.bias[k]);
      }
    } else if (p.per_channel) {
      for (int32_t c = 0; c < depth; ++c) {
        out[c] = ln::ElementNoShift(row, in[c], p.scale[c], p.bias[c]);
      }
    } else {
      const int32_t scale = p.scale[0], bias = p.bias[0];
      for (int32_t c = 0; c < depth; ++c) out[c] = ln::ElementNoShift(row, in[c], scale, bias);
    }
  }
}
