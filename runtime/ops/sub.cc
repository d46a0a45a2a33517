// SUB op glue (runtime/ops/binary_glue.h).
#include "binary_glue.h"
#include "kernels/add/add_limits.h"

namespace tinyforge::rt::ops {

Status Validate_sub(const OpContext& op) {
  return ValidateBinary<OpKind::kSub, s8_add_params>(op, s8_sub_check);
}

Status Run_sub(const OpContext& op) { return RunBinary<s8_add_params>(op); }

}  // namespace tinyforge::rt::ops
