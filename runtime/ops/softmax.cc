// SOFTMAX op glue.
#include "kernels/softmax/softmax_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_softmax(const OpContext& op) {
  s8_softmax_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kSoftmax>(op, abi::kUnOperands, s8_softmax_check, &p)));
  return ExpectInt8Unary(op, Product(p.rows, p.depth), Product(p.rows, p.depth));
}

Status Run_softmax(const OpContext& op) { return RunUnary<s8_softmax_params>(op); }

}  // namespace tinyforge::rt::ops
