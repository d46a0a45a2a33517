// SLICE / STRIDED_SLICE op glue (int8, or float32 as bytes).
#include "kernels/slice/slice_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_slice(const OpContext& op) {
  return ValidateMoveUnary<OpKind::kSlice>(op, s8_slice_check, [](const s8_slice_params& p) {
    IoBytes n{1, 1};
    for (int i = 0; i < kS8SliceMaxDims; ++i) {
      n.in = Product(n.in, p.input_dims[i]);
      n.out = Product(n.out, p.output_dims[i]);
    }
    return n;
  }, kAnyParams);
}

Status Run_slice(const OpContext& op) { return RunUnary<s8_slice_params>(op); }

}  // namespace tinyforge::rt::ops
