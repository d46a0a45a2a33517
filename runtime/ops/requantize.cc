// QUANTIZE (int8 -> int8) / standalone RELU, RELU6 op glue.
#include "kernels/quantize/quantize_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_requantize(const OpContext& op) {
  return ValidateInt8Unary<OpKind::kRequantize>(op, s8_requantize_check, kSizeInSizeOut);
}

Status Run_requantize(const OpContext& op) { return RunUnary<s8_requantize_params>(op); }

}  // namespace tinyforge::rt::ops
