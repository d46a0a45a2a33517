// SOFTMAX for Cortex-M0/M3 (plain C++): the shared fast core (softmax_fast.h: one exp per
// element, 64-bit floor-form SRDHM, sign-aware rounding shifts; the exp table on calls of
// kSoftmaxTableMinScalar elements or more), bit-exact with __ref.
#include "kernels/softmax/softmax_fast.h"

namespace {

int32_t RowMax(const int8_t* in, int32_t depth) {
  int32_t m = in[0];
  for (int32_t c = 1; c < depth; ++c) m = in[c] > m ? in[c] : m;
  return m;
}

}  // namespace

extern "C" void s8_softmax__scalar(const s8_softmax_params* params, const int8_t* input,
                                   int8_t* output, void* scratch) {
  const s8_softmax_params& p = *params;
  if (s8_softmax_table_bytes(p, kSoftmaxTableMinScalar) > 0) {
    tinyforge::softmax_fast::TableRows(p, input, output, static_cast<int32_t*>(scratch), RowMax);
    return;
  }
  const int32_t depth = p.depth;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    tinyforge::softmax_fast::Row(p, in, output + r * depth, RowMax(in, depth));
  }
}
