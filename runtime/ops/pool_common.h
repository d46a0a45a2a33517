// AVERAGE_POOL_2D / MAX_POOL_2D: shared validation and execution (internal).
#ifndef TINYFORGE_RUNTIME_OPS_POOL_COMMON_H_
#define TINYFORGE_RUNTIME_OPS_POOL_COMMON_H_

#include "kernels/pool/pool_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

using PoolFn = void (*)(const s8_pool_params*, const int8_t*, int8_t*);

template <OpKind kOp>
Status ValidatePool(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kPoolOperands, abi::ParamCount<s8_pool_params>()));
  s8_pool_params p{};
  abi::DecodeParams(op, &p);
  TF_RT_TRY(CheckParams(s8_pool_check(p)));
  bool unpadded = true;
  TF_RT_TRY(CheckPoolWindows(op, p, &unpadded));
  if (ScratchBytes<kOp>(op.kernel_id(), p) != 0) return Status::kUnknownKernel;
  TF_RT_TRY(Expect(op, abi::kPoolIn, fmt::kInt8, Product(p.batches, p.in_h, p.in_w, p.channels)));
  TF_RT_TRY(Expect(op, abi::kPoolOut, fmt::kInt8, Product(p.batches, p.out_h, p.out_w, p.channels),
                   true));
  // Pooling does not requantize: the output's quantization is the input's.
  if (op.scale(abi::kPoolIn) != op.scale(abi::kPoolOut) ||
      op.zero_point(abi::kPoolIn) != op.zero_point(abi::kPoolOut)) {
    return Status::kBadParams;
  }
  TF_RT_TRY(ExpectClamp(op, abi::kPoolOut, p.act_min, p.act_max));
  const TensorRef in = op.tensor(abi::kPoolIn), out = op.tensor(abi::kPoolOut);
  if (!op.streamed()) return Disjoint(in, out);
  TF_RT_TRY(StreamLinked());
  if (p.batches != 1) return Status::kBadParams;
  return ExpectLineBuffer(op, abi::kPoolOperands,
                          StreamedGeometry(op, PoolRows(p)).out_unit_bytes, in, out);
}

inline Status RunPool(const OpContext& op) {
  s8_pool_params p{};
  abi::DecodeParams(op, &p);
  const TensorRef in = op.tensor(abi::kPoolIn), out = op.tensor(abi::kPoolOut);
  const PoolFn kernel = reinterpret_cast<PoolFn>(op.entry().kernel);
  if (!op.streamed()) {
    kernel(&p, reinterpret_cast<const int8_t*>(in.data), reinterpret_cast<int8_t*>(out.data));
    return Status::kOk;
  }
  return RunStreamed(op, p, StreamedGeometry(op, PoolRows(p)), in, out, op.tensor(abi::kPoolOperands),
                     [&](const s8_pool_params& row, const uint8_t* row_in, uint8_t* row_out) {
                       kernel(&row, reinterpret_cast<const int8_t*>(row_in),
                              reinterpret_cast<int8_t*>(row_out));
                     });
}

}  // namespace tinyforge::rt::ops

#endif  // TINYFORGE_RUNTIME_OPS_POOL_COMMON_H_
