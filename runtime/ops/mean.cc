// MEAN op glue.
#include "kernels/mean/mean_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_mean(const OpContext& op) {
  return ValidateInt8Unary<OpKind::kMean>(op, s8_mean_check, [](const s8_mean_params& p) {
    return IoBytes{Product(p.outer, p.reduce_size, p.inner), Product(p.outer, p.inner)};
  });
}

Status Run_mean(const OpContext& op) { return RunUnary<s8_mean_params>(op); }

}  // namespace tinyforge::rt::ops
