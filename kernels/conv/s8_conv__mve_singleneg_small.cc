// s8_conv__mve's small driver for single rounding with every shift <= -1 (`--optimize size`,
// docs/decisions.md 59): 2 x 2 blocks only (mve_conv_run.h, kSmall). A path linked on demand
// (kernels/common/paths.h, conv.inc), taken by s8_conv__mve.cc when the mode's full driver is
// not linked; one file per mode, so a program links its own mode's only (decision 74).
#include "kernels/common/isa.h"
#include "kernels/conv/conv.h"

#if TF_HAVE_MVE

#include "kernels/conv/mve_conv_run.h"

extern "C" void s8_conv__mve__singleneg_small(const s8_conv_params* params, const int8_t* input,
                                              const int8_t* weights, const int32_t* bias,
                                              int8_t* output, void* scratch) {
  Conv<mve::kRqSingleNeg, true>(params, input, weights, bias, output, scratch);
}

#endif  // TF_HAVE_MVE
