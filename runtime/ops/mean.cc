// MEAN op glue.
#include "kernels/mean/mean_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_mean(const OpContext& op) {
  s8_mean_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kMean>(op, abi::kUnOperands, s8_mean_check, &p)));
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, Product(p.outer, p.reduce_size, p.inner)));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, Product(p.outer, p.inner), true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_mean(const OpContext& op) { return RunUnary<s8_mean_params>(op); }

}  // namespace tinyforge::rt::ops
