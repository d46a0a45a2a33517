// s8_conv__mve's driver for single rounding with some shift >= 0: per-element requantization (mve_conv_run.h): a path linked
// on demand (kernels/common/paths.h), chosen by s8_conv__mve.cc.
#include "kernels/common/isa.h"
#include "kernels/conv/conv.h"

#if TF_HAVE_MVE

#include "kernels/conv/mve_conv_run.h"

extern "C" void s8_conv__mve__perelement(const s8_conv_params* params, const int8_t* input,
                                     const int8_t* weights, const int32_t* bias,
                                     int8_t* output, void* scratch) {
  Conv<mve::kRqPerElement>(params, input, weights, bias, output, scratch);
}

#endif  // TF_HAVE_MVE
