// TRANSPOSE op glue.
#include "kernels/transpose/transpose_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {
using TransposeFn = void (*)(const s8_transpose_params*, const int8_t*, int8_t*);
}  // namespace

Status Validate_transpose(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kUnOperands, abi::ParamCount<s8_transpose_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_transpose_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_transpose_check(p)));
  int64_t n = 1;
  for (int i = 0; i < kS8TransposeMaxDims; ++i) {
    n = Product(n, p.input_dims[i]);
    if (n < 0) return Status::kBadParams;
  }
  if (ScratchBytes<OpKind::kTranspose>(op.kernel_id(), p) != 0) return Status::kUnknownKernel;
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, n));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, n, true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_transpose(const OpContext& op) {
  s8_transpose_params p{};
  abi::DecodeParams(op, &p);
  reinterpret_cast<TransposeFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.tensor(abi::kUnIn).data),
      reinterpret_cast<int8_t*>(op.tensor(abi::kUnOut).data));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
