// SOFTMAX op glue.
#include "kernels/softmax/softmax_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_softmax(const OpContext& op) {
  return ValidateInt8Unary<OpKind::kSoftmax>(op, s8_softmax_check, [](const s8_softmax_params& p) {
    const int64_t n = Product(p.rows, p.depth);
    return IoBytes{n, n};
  });
}

Status Run_softmax(const OpContext& op) { return RunUnary<s8_softmax_params>(op); }

}  // namespace tinyforge::rt::ops
