// ADD op glue.
#include "binary_common.h"

namespace tinyforge::rt::ops {
namespace {
using AddFn = void (*)(const s8_add_params*, const int8_t*, const int8_t*, int8_t*);
}  // namespace

Status Validate_add(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kBinOperands, abi::ParamCount<s8_add_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_add_params p{};
  abi::DecodeParams(op, &p);
  if (!InRange(p.rounding, TF_ROUNDING_DOUBLE, TF_ROUNDING_SINGLE)) return Status::kBadParams;
  // left_shift <= 20 keeps (x + offset) << left_shift and the sum of the two rescaled
  // inputs inside int32 (TFLite uses exactly 20 for int8).
  if (!InRange(p.input1_offset, -128, 128) || !InRange(p.input2_offset, -128, 128) ||
      !InRange(p.left_shift, 0, 20) || !InRange(p.input1_shift, -31, 0) ||
      !InRange(p.input2_shift, -31, 0) || !InRange(p.output_shift, -31, 0) ||
      !InRange(p.output_offset, -128, 127) || !InRange(p.act_min, -128, 127) ||
      !InRange(p.act_max, p.act_min, 127)) {
    return Status::kBadParams;
  }
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
