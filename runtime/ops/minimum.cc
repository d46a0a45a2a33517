// MINIMUM op glue (runtime/ops/binary_glue.h).
#include "binary_glue.h"
#include "kernels/minmax/minmax_limits.h"

namespace tinyforge::rt::ops {

Status Validate_minimum(const OpContext& op) {
  return ValidateBinary<OpKind::kMinimum, s8_minmax_params>(op, s8_minmax_check);
}

Status Run_minimum(const OpContext& op) { return RunBinary<s8_minmax_params>(op); }

}  // namespace tinyforge::rt::ops
