// ARG_MAX / ARG_MIN op glue: int8 input, int32 output.
#include "kernels/argmax/argmax_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_argmax(const OpContext& op) {
  s8_argmax_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kArgmax>(op, abi::kUnOperands, s8_argmax_check, &p)));
  const int64_t out = Product(p.outer, p.inner);
  const int64_t in = Product(out, p.axis_size);
  if (in < 0 || Product(out, 4) < 0) return Status::kBadParams;
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, in));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt32, Product(out, 4), true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_argmax(const OpContext& op) {
  return RunUnary<s8_argmax_params, int8_t, int32_t>(op);
}

}  // namespace tinyforge::rt::ops
