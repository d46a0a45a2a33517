// MAX_POOL_2D op glue.
#include "pool_common.h"

namespace tinyforge::rt::ops {

Status Validate_maxpool(const OpContext& op) { return ValidatePool<OpKind::kMaxpool>(op); }
Status Run_maxpool(const OpContext& op) { return RunPool(op); }

}  // namespace tinyforge::rt::ops
