// Float models: layer norm / RMS norm over the last dim, float32 (kernels/f32) op glue:
// input, weight, bias (depth entries each: constants or activations), output.
#include "kernels/f32/f32_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_f32_layernorm(const OpContext& op) {
  f32_layernorm_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kF32LayerNorm>(op, abi::kNormOperands, f32_layernorm_check, &p)));
  const int64_t bytes = Product(p.rows, p.depth, 4);
  TF_RT_TRY(Expect(op, abi::kNormIn, fmt::kFloat32, bytes));
  TF_RT_TRY(Expect(op, abi::kNormScale, fmt::kFloat32, Product(p.depth, 4)));
  TF_RT_TRY(Expect(op, abi::kNormBias, fmt::kFloat32, Product(p.depth, 4)));
  TF_RT_TRY(Expect(op, abi::kNormOut, fmt::kFloat32, bytes, true));
  const TensorRef out = op.tensor(abi::kNormOut);
  TF_RT_TRY(Disjoint(op.tensor(abi::kNormScale), out));
  TF_RT_TRY(Disjoint(op.tensor(abi::kNormBias), out));
  return DisjointOrSame(op.tensor(abi::kNormIn), out);  // a row is read before it is written
}

Status Run_f32_layernorm(const OpContext& op) {
  using Fn = void (*)(const f32_layernorm_params*, const float*, const float*, const float*,
                      float*);
  f32_layernorm_params p{};
  abi::DecodeParams(op, &p);
  auto in = [&](int32_t slot) { return reinterpret_cast<const float*>(op.data(slot)); };
  reinterpret_cast<Fn>(op.entry().kernel)(&p, in(abi::kNormIn), in(abi::kNormScale),
                                          in(abi::kNormBias),
                                          reinterpret_cast<float*>(op.data(abi::kNormOut)));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
