// s8_fc__mve's driver for single rounding, every shift <= -1
// (mve_fc.h): a path linked on demand (kernels/common/paths.h), chosen by s8_fc__mve.cc.
#include "kernels/common/isa.h"
#include "kernels/fc/fc.h"

#if TF_HAVE_MVE

#include "kernels/fc/mve_fc.h"

extern "C" void s8_fc__mve__singleneg(const s8_fc_params* params, const int8_t* input,
                                   const int8_t* weights, const int32_t* bias,
                                   int8_t* output, void* scratch) {
  tinyforge::fc_mve::Fc<tinyforge::mve::kRqSingleNeg>(params, input, weights, bias, output, scratch);
}

#endif  // TF_HAVE_MVE
