// SLICE / STRIDED_SLICE op glue.
#include "kernels/slice/slice_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_slice(const OpContext& op) {
  s8_slice_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kSlice>(op, abi::kUnOperands, s8_slice_check, &p)));
  int64_t in = 1, out = 1;
  for (int i = 0; i < kS8SliceMaxDims; ++i) {
    in = Product(in, p.input_dims[i]);
    out = Product(out, p.output_dims[i]);
    if (in < 0 || out < 0) return Status::kBadParams;
  }
  return ExpectInt8Unary(op, in, out);
}

Status Run_slice(const OpContext& op) { return RunUnary<s8_slice_params>(op); }

}  // namespace tinyforge::rt::ops
