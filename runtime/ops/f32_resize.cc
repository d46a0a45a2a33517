// Float models: bilinear resize, float32 (kernels/f32) op glue: input, the int32 coordinate
// table (constant, checked at validation), output. (Nearest neighbour is the resize kind
// moving bytes.)
#include "kernels/f32/f32_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_f32_resize(const OpContext& op) {
  f32_resize_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kF32Resize>(op, abi::kResizeOperands, f32_resize_check, &p)));
  const int64_t in = Product(p.batches, p.input_h, p.input_w, p.channels, 4);
  const int64_t out = Product(p.batches, p.output_h, p.output_w, p.channels, 4);
  if (in < 0 || out < 0) return Status::kBadParams;
  TF_RT_TRY(Expect(op, abi::kResizeIn, fmt::kFloat32, in));
  TF_RT_TRY(Expect(op, abi::kResizeTable, fmt::kInt32, 4 * f32_resize_table_entries(p)));
  TF_RT_TRY(Expect(op, abi::kResizeOut, fmt::kFloat32, out, true));
  const TensorRef table = op.tensor(abi::kResizeTable);
  if (table.in_arena()) return Status::kBadParams;  // checked once: a constant
  TF_RT_TRY(CheckParams(f32_resize_check_table(p, reinterpret_cast<const int32_t*>(table.data))));
  return Disjoint(op.tensor(abi::kResizeIn), op.tensor(abi::kResizeOut));
}

Status Run_f32_resize(const OpContext& op) {
  return RunTwoInputs<f32_resize_params, float, int32_t, float>(op, abi::kResizeIn,
                                                                abi::kResizeTable,
                                                                abi::kResizeOut);
}

}  // namespace tinyforge::rt::ops
