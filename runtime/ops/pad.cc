// PAD / PADV2 op glue (int8, or float32 as bytes padded with +0.0).
#include "kernels/pad/pad_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_pad(const OpContext& op) {
  return ValidateMoveUnary<OpKind::kPad>(op, s8_pad_check, [](const s8_pad_params& p) {
    IoBytes n{1, 1};
    for (int i = 0; i < kS8PadMaxDims; ++i) {
      n.in = Product(n.in, p.input_dims[i]);
      n.out = Product(n.out, int64_t{p.input_dims[i]} + p.pad_before[i] + p.pad_after[i]);
    }
    return n;
  }, [](const s8_pad_params& p) { return p.pad_value == 0; });  // float32: +0.0 bytes only
}

Status Run_pad(const OpContext& op) { return RunUnary<s8_pad_params>(op); }

}  // namespace tinyforge::rt::ops
