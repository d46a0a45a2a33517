// LAYER_NORM / RMS_NORM for Cortex-M0/M3 (plain C++), bit-identical to s8_layernorm__ref:
// the row constants of layernorm_row.h, the per-element step in int32 where the shift is a
// right shift (|o| < 2^29, so o + 2^(shift-1) cannot overflow), broadcast scale/bias hoisted.
#include "kernels/layernorm/layernorm.h"
#include "kernels/layernorm/layernorm_row.h"

namespace ln = tinyforge::layernorm;

namespace {

inline int8_t Step(const ln::Row& row, int32_t q, int32_t dl, int32_t rnd, int32_t scale,
                   int32_t bias) {
  const int32_t o = (ln::MulHiR(ln::MulHiR(q * dl - row.offset, row.rsqrt), scale) + rnd) >>
                    row.shift;
  return ln::Out(o, bias);
}

}  // namespace

extern "C" void s8_layernorm__scalar(const s8_layernorm_params* params, const int8_t* input,
                                     int8_t* output) {
  const s8_layernorm_params& p = *params;
  const int32_t depth = p.depth;
  const int32_t lsh = ln::Headroom(depth);
  const int32_t dl = depth << lsh;
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
    if (row.shift <= 0) {  // left shifts (huge gamma / out_scale): the reference step
      for (int32_t c = 0; c < depth; ++c) {
        const int32_t k = p.per_channel ? c : 0;
        out[c] = ln::Element(row, in[c], dl, p.scale[k], p.bias[k]);
      }
      continue;
    }
    const int32_t rnd = int32_t{1} << (row.shift - 1);
    if (p.per_channel) {
      for (int32_t c = 0; c < depth; ++c) out[c] = Step(row, in[c], dl, rnd, p.scale[c], p.bias[c]);
    } else {
      const int32_t scale = p.scale[0], bias = p.bias[0];
      for (int32_t c = 0; c < depth; ++c) out[c] = Step(row, in[c], dl, rnd, scale, bias);
    }
  }
}
