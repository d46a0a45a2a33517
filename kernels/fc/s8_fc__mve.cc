// FULLY_CONNECTED for Cortex-M55 (Helium/MVE). Bit-identical to s8_fc__ref.
//
// The GEMV/GEMM core of kernels/common/gemm/mve_gemm.h: one input row against 4 weight rows per
// block (each loaded input vector feeds 4 VMLADAVAs), or 2 rows x 2 outputs when there are
// several batches. A non-zero input offset (or a null bias) enters through a per-output bias
// (bias + input_offset * sum(w)) computed once per call in scratch (fc.inc).
// This file is the dispatcher: the driver of the call's requantization mode (mve_fc.h), a path
// linked on demand, or __ref when this firmware did not link that mode.
#include "kernels/fc/fc.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include "kernels/fc/mve_fc.h"

extern "C" void s8_fc__mve(const s8_fc_params* params, const int8_t* input, const int8_t* weights,
                           const int32_t* bias, int8_t* output, void* scratch) {
  namespace rq = tinyforge::rq;
  const int mode = s8_fc_mve_mode(*params);
  auto* path = mode == rq::kRqDoubleNeg   ? s8_fc__mve__doubleneg
               : mode == rq::kRqSingleNeg ? s8_fc__mve__singleneg
                                          : s8_fc__mve__perelement;
  if (path == nullptr) {
    s8_fc__ref(params, input, weights, bias, output, nullptr);
    return;
  }
  path(params, input, weights, bias, output, scratch);
}

#endif  // TF_HAVE_MVE
