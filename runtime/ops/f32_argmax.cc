// Float models: arg max / arg min along one axis, float32 in, int32 out (kernels/f32) op glue.
#include "kernels/f32/f32_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_f32_argmax(const OpContext& op) {
  f32_argmax_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kF32Argmax>(op, abi::kUnOperands, f32_argmax_check, &p)));
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kFloat32, Product(p.outer, p.axis_size, p.inner, 4)));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt32, Product(p.outer, p.inner, 4), true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_f32_argmax(const OpContext& op) {
  return RunUnary<f32_argmax_params, float, int32_t>(op);
}

}  // namespace tinyforge::rt::ops
