// s8_softmax__mve__short: s8_softmax__mve's rows of 1 or 2 elements (at most one exp that is
// not exp(0)): the scalar core skips the vector set-up. A path linked on demand
// (kernels/common/paths.h, softmax.inc; mve_softmax.h).
#include "kernels/common/isa.h"
#include "kernels/softmax/softmax.h"

#if TF_HAVE_MVE

#include "kernels/softmax/mve_softmax.h"
#include "kernels/softmax/softmax_fast.h"

void tinyforge::softmax_mve::s8_softmax__mve__short(const s8_softmax_params& p,
                                                   const int8_t* input, int8_t* output) {
  const int32_t depth = p.depth;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    const int32_t m = depth == 2 && in[1] > in[0] ? in[1] : in[0];
    tinyforge::softmax_fast::Row(p, in, output + r * depth, m);
  }
}

#endif  // TF_HAVE_MVE
