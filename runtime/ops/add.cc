// ADD op glue (runtime/ops/binary_glue.h).
#include "binary_glue.h"
#include "kernels/add/add_limits.h"

namespace tinyforge::rt::ops {

Status Validate_add(const OpContext& op) {
  return ValidateBinary<OpKind::kAdd, s8_add_params>(op, s8_add_check);
}

Status Run_add(const OpContext& op) { return RunBinary<s8_add_params>(op); }

}  // namespace tinyforge::rt::ops
