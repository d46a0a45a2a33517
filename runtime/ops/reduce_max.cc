// REDUCE_MAX op glue.
#include "kernels/mean/mean_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_reduce_max(const OpContext& op) {
  return ValidateInt8Unary<OpKind::kReduceMax>(
      op, s8_reduce_max_check, [](const s8_reduce_max_params& p) {
        return IoBytes{Product(p.outer, p.reduce_size, p.inner), Product(p.outer, p.inner)};
      });
}

Status Run_reduce_max(const OpContext& op) { return RunUnary<s8_reduce_max_params>(op); }

}  // namespace tinyforge::rt::ops
