// QUANTIZE (float32 -> int8) op glue.
#include "kernels/quantize/quantize_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_quantize(const OpContext& op) {
  s8_quantize_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kQuantize>(op, abi::kUnOperands, s8_quantize_check, &p)));
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kFloat32, int64_t{p.size} * 4));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, p.size, true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_quantize(const OpContext& op) { return RunUnary<s8_quantize_params, float, int8_t>(op); }

}  // namespace tinyforge::rt::ops
