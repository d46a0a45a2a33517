// Float fallback: cumulative sum along one axis, float32 (kernels/f32) op glue.
#include "kernels/f32/f32_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_f32_cumsum(const OpContext& op) {
  f32_cumsum_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kF32Cumsum>(op, abi::kUnOperands, f32_cumsum_check, &p)));
  const int64_t bytes = int64_t{p.outer} * p.length * p.inner * 4;
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kFloat32, bytes));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kFloat32, bytes, true));
  return DisjointOrSame(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_f32_cumsum(const OpContext& op) { return RunUnary<f32_cumsum_params, float, float>(op); }

}  // namespace tinyforge::rt::ops
