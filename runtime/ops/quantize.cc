// QUANTIZE (float32 -> int8) op glue.
#include "kernels/quantize/quantize_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {
using QuantizeFn = void (*)(const s8_quantize_params*, const float*, int8_t*);
}  // namespace

Status Validate_quantize(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kUnOperands, abi::ParamCount<s8_quantize_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_quantize_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_quantize_check(p)));
  if (ScratchBytes<OpKind::kQuantize>(op.kernel_id(), p) != 0) return Status::kUnknownKernel;
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kFloat32, int64_t{p.size} * 4));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, p.size, true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_quantize(const OpContext& op) {
  s8_quantize_params p{};
  abi::DecodeParams(op, &p);
  reinterpret_cast<QuantizeFn>(op.entry().kernel)(
      &p, reinterpret_cast<const float*>(op.tensor(abi::kUnIn).data),
      reinterpret_cast<int8_t*>(op.tensor(abi::kUnOut).data));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
