// SQUARED_DIFFERENCE op glue (runtime/ops/binary_glue.h).
#include "binary_glue.h"
#include "kernels/add/add_limits.h"

namespace tinyforge::rt::ops {

Status Validate_squared_difference(const OpContext& op) {
  return ValidateBinary<OpKind::kSquaredDifference, s8_add_params>(op, s8_squared_difference_check);
}

Status Run_squared_difference(const OpContext& op) { return RunBinary<s8_add_params>(op); }

}  // namespace tinyforge::rt::ops
