// FULLY_CONNECTED for Cortex-M55 (Helium/MVE). Bit-identical to s8_fc__ref.
//
// The GEMV/GEMM core of kernels/common/gemm/mve_gemm.h (mve_fc_run.h): one input row against
// 4 weight rows per block (each loaded input vector feeds 4 VMLADAVAs), or 2 rows x 2 outputs
// when there are several batches. A non-zero input offset enters through a per-output bias
// (bias + input_offset * sum(w)) computed once per call in scratch (fc.inc); the compiler
// folds the offset into the bias (precompute-bias), so compiled programs need no scratch.
// Double rounding with every shift <= -1 (TFLite's models) runs here; the other modes are
// paths linked on demand (kernels/common/paths.h, fc.inc: s8_fc__mve_singleneg.cc,
// s8_fc__mve_perelement.cc); a call whose path is not linked runs s8_fc__ref.
#include "kernels/fc/fc.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include "kernels/fc/mve_fc_run.h"

extern "C" void s8_fc__mve(const s8_fc_params* params, const int8_t* input, const int8_t* weights,
                           const int32_t* bias, int8_t* output, void* scratch) {
  namespace mve = tinyforge::mve;
  const s8_fc_params& p = *params;
  const int32_t* b = bias;
  if (bias == nullptr && p.input_offset == 0) {  // no scratch then (fc.inc); compiled programs
    s8_fc__ref(params, input, weights, bias, output, nullptr);  // always carry a bias
    return;
  }
  if (p.input_offset != 0) {
    const uintptr_t base = (reinterpret_cast<uintptr_t>(scratch) + 3u) & ~uintptr_t{3};
    int32_t* ebias = reinterpret_cast<int32_t*>(base);
    mve::EffectiveBias(bias, weights, p.in_features, p.out_features, p.input_offset, ebias);
    b = ebias;
  }
  const int mode = s8_fc_mve_mode(p);
  if (mode == mve::kRqDoubleNeg) {
    tinyforge::fc_mve::Run<mve::kRqDoubleNeg>(p, input, weights, b, output);
    return;
  }
  // rare (some scale >= 0.5): per-element requantization, either rounding
  auto* path = mode == mve::kRqSingleNeg ? s8_fc__mve__singleneg : s8_fc__mve__perelement;
  if (path == nullptr) {
    s8_fc__ref(params, input, weights, bias, output, nullptr);
    return;
  }
  path(params, input, weights, b, output);
}

#endif  // TF_HAVE_MVE
