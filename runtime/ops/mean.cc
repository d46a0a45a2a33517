// MEAN op glue.
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {
using MeanFn = void (*)(const s8_mean_params*, const int8_t*, int8_t*);
}  // namespace

Status Validate_mean(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kUnOperands, abi::ParamCount<s8_mean_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_mean_params p{};
  abi::DecodeParams(op, &p);
  if (!InRange(p.rounding, TF_ROUNDING_DOUBLE, TF_ROUNDING_SINGLE)) return Status::kBadParams;
  // reduce_size <= 2^23 keeps the int32 sum of int8 values exact.
  if (!InRange(p.outer, 1, kMaxDim) || !InRange(p.reduce_size, 1, 1 << 23) ||
      !InRange(p.inner, 1, kMaxDim) || !InRange(p.input_zero_point, -128, 127) ||
      !InRange(p.output_zero_point, -128, 127) || !InRange(p.shift, -31, 30)) {
    return Status::kBadParams;
  }
  if (ScratchBytes<OpKind::kMean>(op.kernel_id(), p) != 0) return Status::kUnknownKernel;
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, Product(p.outer, p.reduce_size, p.inner)));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, Product(p.outer, p.inner), true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_mean(const OpContext& op) {
  s8_mean_params p{};
  abi::DecodeParams(op, &p);
  reinterpret_cast<MeanFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.tensor(abi::kUnIn).data),
      reinterpret_cast<int8_t*>(op.tensor(abi::kUnOut).data));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
