// QUANTIZE (int8 -> int8) / standalone RELU, RELU6 op glue.
#include "kernels/quantize/quantize_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_requantize(const OpContext& op) {
  s8_requantize_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kRequantize>(op, abi::kUnOperands, s8_requantize_check, &p)));
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, p.size));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, p.size, true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_requantize(const OpContext& op) { return RunUnary<s8_requantize_params>(op); }

}  // namespace tinyforge::rt::ops
