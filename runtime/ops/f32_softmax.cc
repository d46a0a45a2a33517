// Float models: softmax along one axis, float32 (kernels/f32) op glue.
#include "kernels/f32/f32_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_f32_softmax(const OpContext& op) {
  f32_softmax_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kF32Softmax>(op, abi::kUnOperands, f32_softmax_check, &p)));
  const int64_t bytes = Product(p.outer, p.length, p.inner, 4);
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kFloat32, bytes));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kFloat32, bytes, true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_f32_softmax(const OpContext& op) {
  return RunUnary<f32_softmax_params, float, float>(op);
}

}  // namespace tinyforge::rt::ops
