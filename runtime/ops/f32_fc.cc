// Float model layer: fully connected, float32 (kernels/f32) op glue.
#include "f32_layers.h"

namespace tinyforge::rt::ops {

Status Validate_f32_fc(const OpContext& op) {
  f32_fc_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kF32Fc>(op, abi::kConvOperands, f32_fc_check, &p)));
  return f32_layers::ExpectWeighted(op, Product(p.batches, p.in_features),
                                    Product(p.out_features, p.in_features), p.out_features,
                                    Product(p.batches, p.out_features));
}

Status Run_f32_fc(const OpContext& op) { return f32_layers::RunWeighted<f32_fc_params>(op); }

}  // namespace tinyforge::rt::ops
