// Float model layer: average pooling, float32 (kernels/f32) op glue.
#include "f32_layers.h"

namespace tinyforge::rt::ops {

Status Validate_f32_avgpool(const OpContext& op) { return f32_layers::ValidatePool<OpKind::kF32Avgpool>(op); }

Status Run_f32_avgpool(const OpContext& op) { return f32_layers::RunPool(op); }

}  // namespace tinyforge::rt::ops
