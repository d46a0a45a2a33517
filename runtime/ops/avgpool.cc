// AVERAGE_POOL_2D op glue.
#include "pool_common.h"

namespace tinyforge::rt::ops {

Status Validate_avgpool(const OpContext& op) { return ValidatePool<OpKind::kAvgpool>(op); }
Status Run_avgpool(const OpContext& op) { return RunPool(op); }

}  // namespace tinyforge::rt::ops
