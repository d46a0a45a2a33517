// Float models: sum, mean or max over one run of dims, float32 (kernels/f32) op glue.
#include "kernels/f32/f32_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_f32_reduce(const OpContext& op) {
  f32_reduce_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kF32Reduce>(op, abi::kUnOperands, f32_reduce_check, &p)));
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kFloat32, Product(p.outer, p.length, p.inner, 4)));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kFloat32, Product(p.outer, p.inner, 4), true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_f32_reduce(const OpContext& op) { return RunUnary<f32_reduce_params, float, float>(op); }

}  // namespace tinyforge::rt::ops
