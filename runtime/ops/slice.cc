// SLICE / STRIDED_SLICE op glue.
#include "kernels/slice/slice_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {
using SliceFn = void (*)(const s8_slice_params*, const int8_t*, int8_t*);
}  // namespace

Status Validate_slice(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kUnOperands, abi::ParamCount<s8_slice_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_slice_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_slice_check(p)));
  int64_t in = 1, out = 1;
  for (int i = 0; i < kS8SliceMaxDims; ++i) {
    in = Product(in, p.input_dims[i]);
    out = Product(out, p.output_dims[i]);
    if (in < 0 || out < 0) return Status::kBadParams;
  }
  if (ScratchBytes<OpKind::kSlice>(op.kernel_id(), p) != 0) return Status::kUnknownKernel;
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, in));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, out, true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_slice(const OpContext& op) {
  s8_slice_params p{};
  abi::DecodeParams(op, &p);
  reinterpret_cast<SliceFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.tensor(abi::kUnIn).data),
      reinterpret_cast<int8_t*>(op.tensor(abi::kUnOut).data));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
