// PAD / PADV2 op glue.
#include "kernels/pad/pad_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_pad(const OpContext& op) {
  s8_pad_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kPad>(op, abi::kUnOperands, s8_pad_check, &p)));
  int64_t in = 1, out = 1;
  for (int i = 0; i < kS8PadMaxDims; ++i) {
    in = Product(in, p.input_dims[i]);
    out = Product(out, int64_t{p.input_dims[i]} + p.pad_before[i] + p.pad_after[i]);
    if (in < 0 || out < 0) return Status::kBadParams;
  }
  return ExpectInt8Unary(op, in, out);
}

Status Run_pad(const OpContext& op) { return RunUnary<s8_pad_params>(op); }

}  // namespace tinyforge::rt::ops
