// Portable reference LAYER_NORM / RMS_NORM (the oracle for every other layernorm variant).
#include "kernels/layernorm/layernorm.h"
#include "kernels/layernorm/layernorm_row.h"

namespace ln = tinyforge::layernorm;

extern "C" void s8_layernorm__ref(const s8_layernorm_params* params, const int8_t* input,
                                  int8_t* output) {
  const s8_layernorm_params& p = *params;
  ln::ForEachRow(
      p, input, output,
      [](const int8_t* in, int32_t depth, int32_t* sum, int32_t* sumsq) {
        for (int32_t c = 0; c < depth; ++c) {
          *sum += in[c];
          *sumsq += in[c] * in[c];
        }
      },
      [&p](const ln::Row& row, const int8_t* in, int8_t* out) { ln::ElementsOf(p, row, in, out); });
}
