// LAYER_NORM / RMS_NORM op glue: input, scale and bias (int32 constants, depth entries or
// one), output. The kernels read a row and each element before writing it: in-place
// (output == input, exactly) is allowed; scale and bias may alias nothing.
#include "kernels/layernorm/layernorm_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {
using NormFn = void (*)(const s8_layernorm_params*, const int8_t*, int8_t*);
}  // namespace

Status Validate_layernorm(const OpContext& op) {
  s8_layernorm_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kLayerNorm>(op, abi::kNormOperands, s8_layernorm_check, &p)));
  const int64_t size = Product(p.rows, p.depth);
  const int64_t channels = p.per_channel ? p.depth : 1;
  TF_RT_TRY(Expect(op, abi::kNormIn, fmt::kInt8, size));
  TF_RT_TRY(Expect(op, abi::kNormScale, fmt::kInt32, Product(channels, 4)));
  TF_RT_TRY(Expect(op, abi::kNormBias, fmt::kInt32, Product(channels, 4)));
  TF_RT_TRY(Expect(op, abi::kNormOut, fmt::kInt8, size, true));
  TF_RT_TRY(Disjoint(op.tensor(abi::kNormScale), op.tensor(abi::kNormOut)));
  TF_RT_TRY(Disjoint(op.tensor(abi::kNormBias), op.tensor(abi::kNormOut)));
  return DisjointOrSame(op.tensor(abi::kNormIn), op.tensor(abi::kNormOut));
}

Status Run_layernorm(const OpContext& op) {
  s8_layernorm_params p{};
  abi::DecodeParams(op, &p);
  p.scale = reinterpret_cast<const int32_t*>(op.data(abi::kNormScale));
  p.bias = reinterpret_cast<const int32_t*>(op.data(abi::kNormBias));
  reinterpret_cast<NormFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.data(abi::kNormIn)),
      reinterpret_cast<int8_t*>(op.data(abi::kNormOut)));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
