// QUANTIZE (int8 -> int8) / standalone RELU, RELU6 op glue.
#include "kernels/quantize/quantize_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_requantize(const OpContext& op) {
  s8_requantize_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kRequantize>(op, abi::kUnOperands, s8_requantize_check, &p)));
  return ExpectInt8Unary(op, p.size, p.size);
}

Status Run_requantize(const OpContext& op) { return RunUnary<s8_requantize_params>(op); }

}  // namespace tinyforge::rt::ops
