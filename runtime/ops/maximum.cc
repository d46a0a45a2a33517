// MAXIMUM op glue (runtime/ops/binary_glue.h).
#include "binary_glue.h"
#include "kernels/minmax/minmax_limits.h"

namespace tinyforge::rt::ops {

Status Validate_maximum(const OpContext& op) {
  return ValidateBinary<OpKind::kMaximum, s8_minmax_params>(op, s8_minmax_check);
}

Status Run_maximum(const OpContext& op) { return RunBinary<s8_minmax_params>(op); }

}  // namespace tinyforge::rt::ops
