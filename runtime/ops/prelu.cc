// PRELU op glue (runtime/ops/binary_glue.h).
#include "binary_glue.h"
#include "kernels/mul/mul_limits.h"

namespace tinyforge::rt::ops {

Status Validate_prelu(const OpContext& op) {
  return ValidateBinary<OpKind::kPrelu, s8_prelu_params>(op, s8_prelu_check);
}

Status Run_prelu(const OpContext& op) { return RunBinary<s8_prelu_params>(op); }

}  // namespace tinyforge::rt::ops
