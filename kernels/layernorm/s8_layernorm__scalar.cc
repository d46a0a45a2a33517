// LAYER_NORM / RMS_NORM for Cortex-M0/M3 (plain C++), bit-identical to s8_layernorm__ref:
// the row constants of layernorm_row.h; rows whose output shift is all taken out of t (the
// common case) skip ShiftR; broadcast scale / bias hoisted.
#include "kernels/layernorm/layernorm.h"
#include "kernels/layernorm/layernorm_row.h"

namespace ln = tinyforge::layernorm;

extern "C" void s8_layernorm__scalar(const s8_layernorm_params* params, const int8_t* input,
                                     int8_t* output) {
  const s8_layernorm_params& p = *params;
  auto sum_row = [](const int8_t* in, int32_t depth, int32_t* sum, int32_t* sumsq) {
    int32_t s = 0, ss = 0;
    for (int32_t c = 0; c < depth; ++c) {
      const int32_t q = in[c];
      s += q;
      ss += q * q;
    }
    *sum = s, *sumsq = ss;
  };
  ln::ForEachRow(p, input, output, sum_row, [&p](const ln::Row& row, const int8_t* in, int8_t* out) {
    const int32_t depth = p.depth;
    if (row.shift != 0) {
      ln::ElementsOf(p, row, in, out);
    } else if (p.per_channel) {
      const int32_t* scale = p.scale;
      const int32_t* bias = p.bias;
      for (int32_t c = 0; c < depth; ++c) out[c] = ln::ElementNoShift(row, in[c], scale[c], bias[c]);
    } else {
      const int32_t scale = p.scale[0], bias = p.bias[0];
      for (int32_t c = 0; c < depth; ++c) out[c] = ln::ElementNoShift(row, in[c], scale, bias);
    }
  });
}
