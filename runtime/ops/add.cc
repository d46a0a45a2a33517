// ADD op glue.
#include "binary_common.h"
#include "kernels/add/add_limits.h"

namespace tinyforge::rt::ops {
namespace {
using AddFn = void (*)(const s8_add_params*, const int8_t*, const int8_t*, int8_t*);
}  // namespace

Status Validate_add(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kBinOperands, abi::ParamCount<s8_add_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_add_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_add_check(p)));
  if (ScratchBytes<OpKind::kAdd>(op.kernel_id(), p) != 0) return Status::kUnknownKernel;
  return ValidateBroadcast(op, p.shape);
}

Status Run_add(const OpContext& op) {
  s8_add_params p{};
  abi::DecodeParams(op, &p);
  reinterpret_cast<AddFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.tensor(abi::kBinIn1).data),
      reinterpret_cast<const int8_t*>(op.tensor(abi::kBinIn2).data),
      reinterpret_cast<int8_t*>(op.tensor(abi::kBinOut).data));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
