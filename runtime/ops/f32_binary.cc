// Float fallback: a float32 function of two inputs with broadcasting (kernels/f32) op glue.
#include "binary_common.h"
#include "kernels/f32/f32_limits.h"

namespace tinyforge::rt::ops {

Status Validate_f32_binary(const OpContext& op) {
  f32_binary_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kF32Binary>(op, abi::kBinOperands, f32_binary_check, &p)));
  return ValidateBroadcast(op, p.shape, fmt::kFloat32, 4);
}

Status Run_f32_binary(const OpContext& op) {
  return RunTwoInputs<f32_binary_params, float, float, float>(op, abi::kBinIn1, abi::kBinIn2,
                                                              abi::kBinOut);
}

}  // namespace tinyforge::rt::ops
