// TRANSPOSE op glue (int8, or float32 as bytes).
#include "kernels/transpose/transpose_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_transpose(const OpContext& op) {
  return ValidateMoveUnary<OpKind::kTranspose>(
      op, s8_transpose_check, [](const s8_transpose_params& p) {
        int64_t n = 1;
        for (int i = 0; i < kS8TransposeMaxDims; ++i) n = Product(n, p.input_dims[i]);
        return IoBytes{n, n};
      },
      kAnyParams);
}

Status Run_transpose(const OpContext& op) { return RunUnary<s8_transpose_params>(op); }

}  // namespace tinyforge::rt::ops
