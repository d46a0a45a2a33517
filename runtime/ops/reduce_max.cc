// REDUCE_MAX op glue.
#include "kernels/mean/mean_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {
using ReduceMaxFn = void (*)(const s8_reduce_max_params*, const int8_t*, int8_t*);
}  // namespace

Status Validate_reduce_max(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kUnOperands, abi::ParamCount<s8_reduce_max_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_reduce_max_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_reduce_max_check(p)));
  if (ScratchBytes<OpKind::kReduceMax>(op.kernel_id(), p) != 0) return Status::kUnknownKernel;
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, Product(p.outer, p.reduce_size, p.inner)));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, Product(p.outer, p.inner), true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_reduce_max(const OpContext& op) {
  s8_reduce_max_params p{};
  abi::DecodeParams(op, &p);
  reinterpret_cast<ReduceMaxFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.tensor(abi::kUnIn).data),
      reinterpret_cast<int8_t*>(op.tensor(abi::kUnOut).data));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
