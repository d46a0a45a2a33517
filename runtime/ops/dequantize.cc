// DEQUANTIZE (int8 -> float32) op glue.
#include "kernels/quantize/quantize_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {
using DequantizeFn = void (*)(const s8_dequantize_params*, const int8_t*, float*);
}  // namespace

Status Validate_dequantize(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kUnOperands, abi::ParamCount<s8_dequantize_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_dequantize_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_dequantize_check(p)));
  if (ScratchBytes<OpKind::kDequantize>(op.kernel_id(), p) != 0) return Status::kUnknownKernel;
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, p.size));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kFloat32, int64_t{p.size} * 4, true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_dequantize(const OpContext& op) {
  s8_dequantize_params p{};
  abi::DecodeParams(op, &p);
  reinterpret_cast<DequantizeFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.tensor(abi::kUnIn).data),
      reinterpret_cast<float*>(op.tensor(abi::kUnOut).data));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
