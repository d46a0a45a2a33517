// LOGISTIC op glue. The kernel reads element i before writing it: in-place is allowed.
#include "kernels/logistic/logistic_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_logistic(const OpContext& op) {
  s8_logistic_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kLogistic>(op, abi::kUnOperands, s8_logistic_check, &p)));
  return ExpectInt8Unary(op, p.size, p.size, true);
}

Status Run_logistic(const OpContext& op) { return RunUnary<s8_logistic_params>(op); }

}  // namespace tinyforge::rt::ops
