// LOGISTIC op glue. The kernel reads element i before writing it: in-place is allowed.
#include "kernels/logistic/logistic_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {
using LogisticFn = void (*)(const s8_logistic_params*, const int8_t*, int8_t*);
}  // namespace

Status Validate_logistic(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kUnOperands, abi::ParamCount<s8_logistic_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_logistic_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_logistic_check(p)));
  if (ScratchBytes<OpKind::kLogistic>(op.kernel_id(), p) != 0) return Status::kUnknownKernel;
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, p.size));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, p.size, true));
  return DisjointOrSame(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_logistic(const OpContext& op) {
  s8_logistic_params p{};
  abi::DecodeParams(op, &p);
  reinterpret_cast<LogisticFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.tensor(abi::kUnIn).data),
      reinterpret_cast<int8_t*>(op.tensor(abi::kUnOut).data));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
