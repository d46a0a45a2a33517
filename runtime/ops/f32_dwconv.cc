// Float model layer: depthwise convolution, float32 (kernels/f32) op glue.
#include "f32_layers.h"

namespace tinyforge::rt::ops {

Status Validate_f32_dwconv(const OpContext& op) {
  return f32_layers::ValidateConv<OpKind::kF32Dwconv>(op, true);
}

Status Run_f32_dwconv(const OpContext& op) { return f32_layers::RunWeighted<f32_conv_params>(op); }

}  // namespace tinyforge::rt::ops
