// DEPTHWISE_CONV_2D op glue: validates the op record at init, rebuilds s8_dwconv_params on the
// stack and calls the kernel (whole tensor, or row by row through a line buffer when streamed).
// What it shares with CONV_2D is in conv_common.h.
#include "conv_common.h"
#include "kernels/dwconv/dwconv_limits.h"

namespace tinyforge::rt::ops {

Status Validate_dwconv(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kConvOperands, abi::ParamCount<s8_dwconv_params>()));
  s8_dwconv_params p{};
  abi::DecodeParams(op, &p);
  return conv_common::Validate<OpKind::kDwconv>(
      op, p, s8_dwconv_check(p),
      [](const s8_dwconv_params& q) { return Product(q.k_h, q.k_w, q.out_c); });
}

Status Run_dwconv(const OpContext& op) { return conv_common::Run<s8_dwconv_params>(op); }

}  // namespace tinyforge::rt::ops
