// GATHER op glue: int8 (or float32 as bytes) input, int32 indices (a constant or an activation, e.g. token ids
// from the caller), int8 output. Indices outside [0, axis_size) ([-axis_size, axis_size)
// with wrap_negative) make the run fail with
// kBadIndexValue before anything is written (docs/decisions.md 39); constant ones fail at
// validation already.
#include "kernels/gather/gather_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {

int32_t FirstIndex(const s8_gather_params& p) { return p.wrap_negative ? -p.axis_size : 0; }

}  // namespace

Status Validate_gather(const OpContext& op) {
  s8_gather_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kGather>(op, abi::kBinOperands, s8_gather_check, &p)));
  const uint8_t dtype = MovedDType(op, abi::kBinIn1);  // float32 as bytes: inner counts bytes
  TF_RT_TRY(ExpectMoved(op, abi::kBinIn1, dtype, Product(p.outer, p.axis_size, p.inner)));
  TF_RT_TRY(Expect(op, abi::kBinIn2, fmt::kInt32, Product(p.count, 4)));
  TF_RT_TRY(ExpectMoved(op, abi::kBinOut, dtype, Product(p.outer, p.count, p.inner), true));
  const TensorRef out = op.tensor(abi::kBinOut);
  TF_RT_TRY(Disjoint(op.tensor(abi::kBinIn1), out));
  TF_RT_TRY(Disjoint(op.tensor(abi::kBinIn2), out));
  if (!op.tensor(abi::kBinIn2).in_arena()) {
    TF_RT_TRY(ExpectValues(op, abi::kBinIn2, FirstIndex(p), p.axis_size - 1));
  }
  return Status::kOk;
}

Status Run_gather(const OpContext& op) {
  s8_gather_params p{};
  abi::DecodeParams(op, &p);
  // Constant indices were checked once, at validation; indices in an arena change per run.
  if (op.tensor(abi::kBinIn2).in_arena() &&
      !Ok(ExpectValues(op, abi::kBinIn2, FirstIndex(p), p.axis_size - 1))) {
    return Status::kBadIndexValue;
  }
  return RunTwoInputs<s8_gather_params, int8_t, int32_t>(op, abi::kBinIn1, abi::kBinIn2,
                                                         abi::kBinOut);
}

}  // namespace tinyforge::rt::ops
