// UNIDIRECTIONAL_SEQUENCE_LSTM op glue: the input sequence, the two weight matrices and the
// effective biases (constants), the output sequence, and the scratch the kernel keeps its
// state and gates in. The kernel reads step t's input after writing earlier outputs, so the
// output overlaps nothing.
#include "kernels/lstm/lstm_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {
namespace {
using LstmFn = void (*)(const s8_lstm_params*, const int8_t*, const int8_t*, const int8_t*,
                        const int32_t*, int8_t*, void*);
}  // namespace

Status Validate_lstm(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kLstmOperands, abi::ParamCount<s8_lstm_params>()));
  if (op.streamed()) return Status::kBadOp;
  s8_lstm_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_lstm_check(p)));
  const int64_t gate_rows = Product(4, p.units);
  TF_RT_TRY(Expect(op, abi::kLstmIn, fmt::kInt8, Product(p.steps, p.in_features)));
  TF_RT_TRY(Expect(op, abi::kLstmWx, fmt::kInt8, Product(gate_rows, p.in_features)));
  TF_RT_TRY(Expect(op, abi::kLstmWh, fmt::kInt8, Product(gate_rows, p.units)));
  TF_RT_TRY(Expect(op, abi::kLstmBias, fmt::kInt32, Product(p.units, 8, 4)));
  TF_RT_TRY(Expect(op, abi::kLstmOut, fmt::kInt8, Product(p.steps, p.units), true));
  const TensorRef out = op.tensor(abi::kLstmOut);
  const int32_t inputs[] = {abi::kLstmIn, abi::kLstmWx, abi::kLstmWh, abi::kLstmBias};
  for (int32_t slot : inputs) {
    TF_RT_TRY(Disjoint(op.tensor(slot), out));
  }
  const TensorRef others[] = {op.tensor(abi::kLstmIn), out};
  const int64_t scratch = KernelScratch<OpKind::kLstm>(op, p);
  if (scratch <= 0 || !op.has(abi::kLstmScratch)) return Status::kBadParams;
  if ((reinterpret_cast<uintptr_t>(op.data(abi::kLstmScratch)) & 3) != 0) {
    return Status::kBadParams;  // the kernel keeps int16 state in it
  }
  return ExpectScratch(op, abi::kLstmScratch, scratch, others);
}

Status Run_lstm(const OpContext& op) {
  s8_lstm_params p{};
  abi::DecodeParams(op, &p);
  reinterpret_cast<LstmFn>(op.entry().kernel)(
      &p, reinterpret_cast<const int8_t*>(op.data(abi::kLstmIn)),
      reinterpret_cast<const int8_t*>(op.data(abi::kLstmWx)),
      reinterpret_cast<const int8_t*>(op.data(abi::kLstmWh)),
      reinterpret_cast<const int32_t*>(op.data(abi::kLstmBias)),
      reinterpret_cast<int8_t*>(op.data(abi::kLstmOut)), op.data(abi::kLstmScratch));
  return Status::kOk;
}

}  // namespace tinyforge::rt::ops
