// PAD / PADV2 op glue.
#include "kernels/pad/pad_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_pad(const OpContext& op) {
  return ValidateInt8Unary<OpKind::kPad>(op, s8_pad_check, [](const s8_pad_params& p) {
    IoBytes n{1, 1};
    for (int i = 0; i < kS8PadMaxDims; ++i) {
      n.in = Product(n.in, p.input_dims[i]);
      n.out = Product(n.out, int64_t{p.input_dims[i]} + p.pad_before[i] + p.pad_after[i]);
    }
    return n;
  });
}

Status Run_pad(const OpContext& op) { return RunUnary<s8_pad_params>(op); }

}  // namespace tinyforge::rt::ops
