// QUANTIZE (int8 -> int8) / standalone RELU, RELU6 op glue.
#include "kernels/quantize/quantize_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {
using RequantizeFn = void (*)(const s8_requantize_params*, const int8_t*, int8_t*);
}  // namespace

Status Validate_requantize(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kUnOperands, abi::ParamCount<s8_requantize_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_requantize_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_requantize_check(p)));
  if (ScratchBytes<OpKind::kRequantize>(op.kernel_id(), p) != 0) return Status::kUnknownKernel;
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, p.size));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, p.size, true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}

Status Run_requantize(const OpContext& op) {
  s8_requantize_params p{};
  abi::DecodeParams(op, &p);
  reinterpret_cast<RequantizeFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.tensor(abi::kUnIn).data),
      reinterpret_cast<int8_t*>(op.tensor(abi::kUnOut).data));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
