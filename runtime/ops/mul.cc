// MUL op glue (runtime/ops/binary_glue.h).
#include "binary_glue.h"
#include "kernels/mul/mul_limits.h"

namespace tinyforge::rt::ops {

Status Validate_mul(const OpContext& op) {
  return ValidateBinary<OpKind::kMul, s8_mul_params>(op, s8_mul_check);
}

Status Run_mul(const OpContext& op) { return RunBinary<s8_mul_params>(op); }

}  // namespace tinyforge::rt::ops
