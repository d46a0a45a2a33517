// REDUCE_MAX op glue.
#include "kernels/mean/mean_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_reduce_max(const OpContext& op) {
  s8_reduce_max_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kReduceMax>(op, abi::kUnOperands, s8_reduce_max_check, &p)));
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, Product(p.outer, p.reduce_size, p.inner)));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, Product(p.outer, p.inner), true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_reduce_max(const OpContext& op) { return RunUnary<s8_reduce_max_params>(op); }

}  // namespace tinyforge::rt::ops
