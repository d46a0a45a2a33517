// Float models: batched matrix product (matmul), float32 (kernels/f32) op glue: lhs, rhs
// (each an activation or a constant), output.
#include "kernels/f32/f32_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_f32_bmm(const OpContext& op) {
  f32_bmm_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kF32Bmm>(op, abi::kBinOperands, f32_bmm_check, &p)));
  TF_RT_TRY(Expect(op, abi::kBinIn1,
                   fmt::kFloat32, Product(p.a_broadcast ? 1 : p.batches, p.rows, p.depth, 4)));
  TF_RT_TRY(Expect(op, abi::kBinIn2,
                   fmt::kFloat32, Product(p.b_broadcast ? 1 : p.batches, p.depth, p.cols, 4)));
  TF_RT_TRY(Expect(op, abi::kBinOut, fmt::kFloat32, Product(p.batches, p.rows, p.cols, 4), true));
  const TensorRef out = op.tensor(abi::kBinOut);
  TF_RT_TRY(Disjoint(op.tensor(abi::kBinIn1), out));
  return Disjoint(op.tensor(abi::kBinIn2), out);
}

Status Run_f32_bmm(const OpContext& op) {
  return RunTwoInputs<f32_bmm_params, float, float, float>(op, abi::kBinIn1, abi::kBinIn2,
                                                           abi::kBinOut);
}

}  // namespace tinyforge::rt::ops
