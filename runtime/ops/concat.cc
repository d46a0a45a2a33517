// CONCATENATION op glue (int8, or float32 as bytes). The per-input descriptors and input pointers are rebuilt on the
// stack (at most abi::kMaxConcatInputs inputs).
#include "kernels/concat/concat_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {

using ConcatFn = void (*)(const s8_concat_params*, const int8_t* const*, int8_t*);

// Input k's descriptor: the parameter words after the fixed part.
struct InputReader {
  const OpContext& op;
  int32_t base;
  int32_t operator()(int32_t i) const { return op.param(base + i); }
};

s8_concat_input ReadInput(const OpContext& op, int32_t k) {
  s8_concat_input in{};
  InputReader r{op, abi::ParamCount<s8_concat_params>() + k * abi::kConcatInputWords};
  abi::FieldReader<InputReader> fr{r};
  abi::VisitConcatInput(in, fr);
  return in;
}

}  // namespace

Status Validate_concat(const OpContext& op) {
  if (op.streamed() || op.num_params() < abi::ParamCount<s8_concat_params>()) {
    return Status::kBadOp;
  }
  s8_concat_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_concat_check(p)));
  TF_RT_TRY(ExpectRounding(op, p));
  TF_RT_TRY(
      ExpectCounts(op, p.num_inputs + 1,
                   abi::ParamCount<s8_concat_params>() + p.num_inputs * abi::kConcatInputWords));
  if (ScratchBytes<OpKind::kConcat>(op.kernel_id(), p) != 0) return Status::kUnknownKernel;
  // float32 as bytes (axis_inner counts bytes): copies only.
  const uint8_t dtype = MovedDType(op, p.num_inputs);
  int64_t row = 0;
  for (int32_t k = 0; k < p.num_inputs; ++k) {
    const s8_concat_input in = ReadInput(op, k);
    TF_RT_TRY(CheckParams(s8_concat_input_check(in)));
    if (dtype == fmt::kFloat32 && in.requantize != 0) return Status::kBadParams;
    TF_RT_TRY(ExpectMoved(op, k, dtype, Product(p.outer, in.axis_inner)));
    row += in.axis_inner;
  }
  TF_RT_TRY(ExpectMoved(op, p.num_inputs, dtype, Product(p.outer, row), true));
  const TensorRef out = op.tensor(p.num_inputs);
  for (int32_t k = 0; k < p.num_inputs; ++k) TF_RT_TRY(Disjoint(op.tensor(k), out));
  return Status::kOk;
}

Status Run_concat(const OpContext& op) {
  s8_concat_params p{};
  abi::DecodeParams(op, &p);
  s8_concat_input inputs[abi::kMaxConcatInputs];
  const int8_t* data[abi::kMaxConcatInputs];
  for (int32_t k = 0; k < p.num_inputs; ++k) {
    inputs[k] = ReadInput(op, k);
    data[k] = reinterpret_cast<const int8_t*>(op.data(k));
  }
  p.inputs = inputs;
  reinterpret_cast<ConcatFn>(op.entry().kernel)(
      &p, data, reinterpret_cast<int8_t*>(op.data(p.num_inputs)));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
