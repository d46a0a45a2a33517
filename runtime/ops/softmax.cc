// SOFTMAX op glue: int8 in and out, and the exp table's scratch buffer when the kernel asks
// for one (softmax.inc).
#include "kernels/softmax/softmax_limits.h"
#include "op_util.h"
#include "tinyforge/softmax_scale.h"

namespace tinyforge::rt::ops {
namespace {
using SoftmaxFn = void (*)(const s8_softmax_params*, const int8_t*, int8_t*, void*);
}  // namespace

Status Validate_softmax(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kSoftmaxOperands, abi::ParamCount<s8_softmax_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_softmax_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_softmax_check(p)));
  // diff_min as the compiler derives it from the shift (TFLite's CalculateInputRadius with
  // 5 integer bits: floor((2^5 - 1) * 2^26 / 2^shift)).
  if (p.diff_min != -static_cast<int32_t>((31u << 26) >> p.input_left_shift)) {
    return Status::kBadParams;
  }
  // The input multiplier is the input scale's (beta 1), unless the op declares another beta
  // (BETA); declared exactly, as the emitter decides it (compiler/emit/program_writer.cc).
  if (op.scale(abi::kSoftmaxIn) != 0.0f) {
    int32_t multiplier = 0, shift = 0;
    const bool unit = SoftmaxUnitBetaMultiplier(op.scale(abi::kSoftmaxIn), &multiplier, &shift) &&
                      multiplier == p.input_multiplier && shift == p.input_left_shift;
    if (((op.flags() & fmt::kOpFlagBeta) != 0) == unit) return Status::kBadParams;
  }
  const int64_t n = Product(p.rows, p.depth);
  TF_RT_TRY(Expect(op, abi::kSoftmaxIn, fmt::kInt8, n));
  TF_RT_TRY(Expect(op, abi::kSoftmaxOut, fmt::kInt8, n, true));
  // The output has TFLite's fixed quantization (1/256, -128), where recorded.
  if (op.scale(abi::kSoftmaxOut) != 0.0f &&
      (op.scale(abi::kSoftmaxOut) != 1.0f / 256 || op.zero_point(abi::kSoftmaxOut) != -128)) {
    return Status::kBadParams;
  }
  const TensorRef in = op.tensor(abi::kSoftmaxIn), out = op.tensor(abi::kSoftmaxOut);
  TF_RT_TRY(Disjoint(in, out));
  const TensorRef others[] = {in, out};
  return ExpectScratch(op, abi::kSoftmaxScratch,
                       KernelScratch<OpKind::kSoftmax>(op, p), others);
}

Status Run_softmax(const OpContext& op) {
  s8_softmax_params p{};
  abi::DecodeParams(op, &p);
  void* scratch = op.has(abi::kSoftmaxScratch) ? op.data(abi::kSoftmaxScratch) : nullptr;
  reinterpret_cast<SoftmaxFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.data(abi::kSoftmaxIn)),
      reinterpret_cast<int8_t*>(op.data(abi::kSoftmaxOut)), scratch);
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
