// SOFTMAX for Cortex-M4/M7/M33 (DSP extension), bit-exact with __ref.
//
// Row max four bytes at a time (SSUB8 sets per-byte GE flags, SEL keeps the larger bytes);
// the rest is the shared fast core (softmax_fast.h: one exp per element, SRDHM as one
// SMULL + rounding add + shift, sign-aware rounding shifts), which is the same gemmlowp
// fixed-point arithmetic as __ref; calls of kSoftmaxTableMinDsp elements or more read the
// exps from the table (softmax_fast.h TableRows).
#include "kernels/softmax/softmax.h"
#include "kernels/common/isa.h"
#include "kernels/common/word.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/softmax/softmax_fast.h"

namespace {

using tinyforge::LoadWord;
using tinyforge::dsp::Max4;

inline int32_t RowMax(const int8_t* in, int32_t depth) {
  int32_t c = 1;
  int32_t m = in[0];
  if (depth >= 4) {
    uint32_t m4 = LoadWord(in);
    for (c = 4; c + 4 <= depth; c += 4) m4 = Max4(m4, LoadWord(in + c));
    m4 = Max4(m4, m4 >> 16);  // top bytes junk-free: compared against bytes 0, 1 only
    m4 = Max4(m4, m4 >> 8);
    m = static_cast<int8_t>(m4 & 0xFF);
  }
  for (; c < depth; ++c) m = in[c] > m ? in[c] : m;
  return m;
}

}  // namespace

extern "C" void s8_softmax__dsp(const s8_softmax_params* params, const int8_t* input,
                                int8_t* output, void* scratch) {
  const s8_softmax_params& p = *params;
  if (s8_softmax_table_bytes(p, kSoftmaxTableMinDsp) > 0) {
    tinyforge::softmax_fast::TableRows(p, input, output, static_cast<int32_t*>(scratch), RowMax);
    return;
  }
  const int32_t depth = p.depth;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    tinyforge::softmax_fast::Row(p, in, output + r * depth, RowMax(in, depth));
  }
}

#endif  // TF_HAVE_DSP
