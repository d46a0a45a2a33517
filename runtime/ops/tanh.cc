// TANH op glue. The kernel reads element i before writing it: in-place is allowed.
#include "kernels/tanh/tanh_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_tanh(const OpContext& op) {
  return ValidateInt8Unary<OpKind::kTanh>(op, s8_tanh_check, kSizeInSizeOut, true);
}

Status Run_tanh(const OpContext& op) { return RunUnary<s8_tanh_params>(op); }

}  // namespace tinyforge::rt::ops
