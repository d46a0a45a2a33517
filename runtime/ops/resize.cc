// RESIZE op glue: input, the int32 coordinate table (constant), output.
#include "kernels/resize/resize_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_resize(const OpContext& op) {
  s8_resize_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kResize>(op, abi::kResizeOperands, s8_resize_check, &p)));
  const int64_t in = Product(p.batches, p.input_h, p.input_w, p.channels);
  const int64_t out = Product(p.batches, p.output_h, p.output_w, p.channels);
  if (in < 0 || out < 0) return Status::kBadParams;
  // float32 as bytes (channels count bytes): nearest neighbour only, which copies pixels.
  const uint8_t dtype = MovedDType(op, abi::kResizeIn);
  if (dtype == fmt::kFloat32 && p.bilinear != 0) return Status::kBadParams;
  TF_RT_TRY(ExpectMoved(op, abi::kResizeIn, dtype, in));
  TF_RT_TRY(Expect(op, abi::kResizeTable, fmt::kInt32, 4 * s8_resize_table_entries(p)));
  TF_RT_TRY(ExpectMoved(op, abi::kResizeOut, dtype, out, true));
  const TensorRef table = op.tensor(abi::kResizeTable);
  TF_RT_TRY(CheckParams(s8_resize_check_table(p, reinterpret_cast<const int32_t*>(table.data))));
  TF_RT_TRY(Disjoint(table, op.tensor(abi::kResizeOut)));
  return Disjoint(op.tensor(abi::kResizeIn), op.tensor(abi::kResizeOut));
}

Status Run_resize(const OpContext& op) {
  return RunTwoInputs<s8_resize_params, int8_t, int32_t>(op, abi::kResizeIn, abi::kResizeTable,
                                                          abi::kResizeOut);
}

}  // namespace tinyforge::rt::ops
