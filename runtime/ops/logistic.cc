// LOGISTIC op glue. The kernel reads element i before writing it: in-place is allowed.
#include "kernels/logistic/logistic_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_logistic(const OpContext& op) {
  return ValidateInt8Unary<OpKind::kLogistic>(op, s8_logistic_check, kSizeInSizeOut, true);
}

Status Run_logistic(const OpContext& op) { return RunUnary<s8_logistic_params>(op); }

}  // namespace tinyforge::rt::ops
