// FULLY_CONNECTED op glue.
#include "kernels/fc/fc_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {
using FcFn = void (*)(const s8_fc_params*, const int8_t*, const int8_t*, const int32_t*, int8_t*,
                      void*);
}  // namespace

Status Validate_fc(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kConvOperands, abi::ParamCount<s8_fc_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_fc_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_fc_check(p)));
  TF_RT_TRY(ExpectRounding(op, p));
  const int64_t quant = p.per_channel ? p.out_features : 1;
  TF_RT_TRY(Expect(op, abi::kConvIn, fmt::kInt8, Product(p.batches, p.in_features)));
  TF_RT_TRY(Expect(op, abi::kConvWeights, fmt::kInt8, Product(p.out_features, p.in_features)));
  if (op.has(abi::kConvBias)) {
    TF_RT_TRY(Expect(op, abi::kConvBias, fmt::kInt32, Product(p.out_features, 4)));
  }
  TF_RT_TRY(Expect(op, abi::kConvMultiplier, fmt::kInt32, Product(quant, 4)));
  TF_RT_TRY(Expect(op, abi::kConvShift, fmt::kInt32, Product(quant, 4)));
  TF_RT_TRY(ExpectValues(op, abi::kConvShift, TF_LIMIT_SHIFT_MIN, TF_LIMIT_SHIFT_MAX));
  TF_RT_TRY(Expect(op, abi::kConvOut, fmt::kInt8, Product(p.batches, p.out_features), true));
  TF_RT_TRY(ExpectInputOffset(op, abi::kConvIn, p.input_offset, true));
  TF_RT_TRY(ExpectZeroPoint(op, abi::kConvOut, p.output_offset));
  TF_RT_TRY(ExpectClamp(op, abi::kConvOut, p.act_min, p.act_max));
  const TensorRef out = op.tensor(abi::kConvOut);
  const int32_t slots1[] = {abi::kConvIn, abi::kConvWeights, abi::kConvBias, abi::kConvMultiplier,
                            abi::kConvShift};
  for (int32_t slot : slots1) {
    if (op.has(slot)) TF_RT_TRY(Disjoint(op.tensor(slot), out));
  }
  const int64_t scratch = ScratchBytes<OpKind::kFc>(op.kernel_id(), p);
  if (scratch < 0) return Status::kUnknownKernel;
  if (op.has(abi::kConvScratch)) {
    const TensorRef s = op.tensor(abi::kConvScratch);
    if (!s.in_arena() || int64_t{s.size} < scratch) return Status::kBadParams;
    TF_RT_TRY(Disjoint(s, op.tensor(abi::kConvIn)));
    TF_RT_TRY(Disjoint(s, out));
  } else if (scratch > 0) {
    return Status::kBadParams;
  }
  return Status::kOk;
}

Status Run_fc(const OpContext& op) {
  s8_fc_params p{};
  abi::DecodeParams(op, &p);
  p.multiplier = reinterpret_cast<const int32_t*>(op.data(abi::kConvMultiplier));
  p.shift = reinterpret_cast<const int32_t*>(op.data(abi::kConvShift));
  const int32_t* bias = op.has(abi::kConvBias)
                            ? reinterpret_cast<const int32_t*>(op.data(abi::kConvBias))
                            : nullptr;
  void* scratch = op.has(abi::kConvScratch) ? op.data(abi::kConvScratch) : nullptr;
  reinterpret_cast<FcFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.data(abi::kConvIn)),
      reinterpret_cast<const int8_t*>(op.data(abi::kConvWeights)), bias,
      reinterpret_cast<int8_t*>(op.data(abi::kConvOut)), scratch);
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
