// Float model layer: max pooling, float32 (kernels/f32) op glue.
#include "f32_layers.h"

namespace tinyforge::rt::ops {

Status Validate_f32_maxpool(const OpContext& op) { return f32_layers::ValidatePool<OpKind::kF32Maxpool>(op); }

Status Run_f32_maxpool(const OpContext& op) { return f32_layers::RunPool(op); }

}  // namespace tinyforge::rt::ops
