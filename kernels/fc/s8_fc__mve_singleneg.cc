// s8_fc__mve's driver for single rounding, every shift <= -1 (mve_fc_run.h): a path linked on demand
// (kernels/common/paths.h, fc.inc), chosen by s8_fc__mve.cc; `bias` is the effective bias.
#include "kernels/common/isa.h"
#include "kernels/fc/fc.h"

#if TF_HAVE_MVE

#include "kernels/fc/mve_fc_run.h"

extern "C" void s8_fc__mve__singleneg(const s8_fc_params* params, const int8_t* input,
                                  const int8_t* weights, const int32_t* bias, int8_t* output) {
  tinyforge::fc_mve::Run<tinyforge::mve::kRqSingleNeg>(*params, input, weights, bias, output);
}

#endif  // TF_HAVE_MVE
