// Float fallback: a float32 function of one input (kernels/f32) op glue.
#include "kernels/f32/f32_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_f32_unary(const OpContext& op) {
  f32_unary_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kF32Unary>(op, abi::kUnOperands, f32_unary_check, &p)));
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kFloat32, int64_t{p.size} * 4));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kFloat32, int64_t{p.size} * 4, true));
  return DisjointOrSame(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_f32_unary(const OpContext& op) { return RunUnary<f32_unary_params, float, float>(op); }

}  // namespace tinyforge::rt::ops
