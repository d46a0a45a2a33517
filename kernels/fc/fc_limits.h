// FULLY_CONNECTED parameter ranges (kernels/common/limits.h): s8_fc_check, used by the
// compiler (compiler/quant) and the runtime validator (runtime/ops/fc.cc).
#ifndef TINYFORGE_KERNELS_FC_FC_LIMITS_H_
#define TINYFORGE_KERNELS_FC_FC_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/fc/fc.h"

inline const char* s8_fc_check(const s8_fc_params& p) {
  TF_CHECK_ROUNDING(p);
  TF_CHECK_DIM(p, batches);
  TF_CHECK_DIM(p, in_features);
  TF_CHECK_DIM(p, out_features);
  TF_CHECK_RANGE(p, per_channel, 0, 1);
  TF_CHECK_RANGE(p, input_offset, -127, 128);
  TF_CHECK_INT8(p, output_offset);
  TF_CHECK_CLAMP(p);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_FC_FC_LIMITS_H_
