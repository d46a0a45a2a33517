// SOFTMAX op glue.
#include "kernels/softmax/softmax_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_softmax(const OpContext& op) {
  s8_softmax_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kSoftmax>(op, abi::kUnOperands, s8_softmax_check, &p)));
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, Product(p.rows, p.depth)));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, Product(p.rows, p.depth), true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_softmax(const OpContext& op) { return RunUnary<s8_softmax_params>(op); }

}  // namespace tinyforge::rt::ops
