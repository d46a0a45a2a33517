// DEQUANTIZE (int8 -> float32) op glue.
#include "kernels/quantize/quantize_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_dequantize(const OpContext& op) {
  s8_dequantize_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kDequantize>(op, abi::kUnOperands, s8_dequantize_check, &p)));
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, p.size));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kFloat32, int64_t{p.size} * 4, true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_dequantize(const OpContext& op) { return RunUnary<s8_dequantize_params, int8_t, float>(op); }

}  // namespace tinyforge::rt::ops
