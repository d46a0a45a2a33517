// BATCH_MATMUL op glue: two int8 operands (activations or constants), one int8 output,
// an optional scratch buffer.
#include "kernels/bmm/bmm_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {
using BmmFn = void (*)(const s8_bmm_params*, const int8_t*, const int8_t*, int8_t*, void*);
}  // namespace

Status Validate_bmm(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kBmmOperands, abi::ParamCount<s8_bmm_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_bmm_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_bmm_check(p)));
  TF_RT_TRY(ExpectRounding(op, p));
  TF_RT_TRY(Expect(op, abi::kBmmLhs, fmt::kInt8, Product(p.lhs_batches, p.rows, p.depth)));
  TF_RT_TRY(Expect(op, abi::kBmmRhs, fmt::kInt8, Product(p.rhs_batches, p.depth, p.cols)));
  TF_RT_TRY(Expect(op, abi::kBmmOut, fmt::kInt8, Product(p.batches, p.rows, p.cols), true));
  const TensorRef lhs = op.tensor(abi::kBmmLhs), rhs = op.tensor(abi::kBmmRhs);
  const TensorRef out = op.tensor(abi::kBmmOut);
  TF_RT_TRY(Disjoint(lhs, out));
  TF_RT_TRY(Disjoint(rhs, out));
  const TensorRef others[] = {lhs, rhs, out};
  return ExpectScratch(op, abi::kBmmScratch, KernelScratch<OpKind::kBmm>(op, p),
                       others);
}

Status Run_bmm(const OpContext& op) {
  s8_bmm_params p{};
  abi::DecodeParams(op, &p);
  void* scratch = op.has(abi::kBmmScratch) ? op.data(abi::kBmmScratch) : nullptr;
  reinterpret_cast<BmmFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.data(abi::kBmmLhs)),
      reinterpret_cast<const int8_t*>(op.data(abi::kBmmRhs)),
      reinterpret_cast<int8_t*>(op.data(abi::kBmmOut)), scratch);
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
