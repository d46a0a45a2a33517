// TANH op glue. The kernel reads element i before writing it: in-place is allowed.
#include "kernels/tanh/tanh_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_tanh(const OpContext& op) {
  s8_tanh_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kTanh>(op, abi::kUnOperands, s8_tanh_check, &p)));
  return ExpectInt8Unary(op, p.size, p.size, true);
}

Status Run_tanh(const OpContext& op) { return RunUnary<s8_tanh_params>(op); }

}  // namespace tinyforge::rt::ops
