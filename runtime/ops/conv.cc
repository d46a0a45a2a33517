// CONV_2D op glue: validates the op record at init, rebuilds s8_conv_params on the stack
// and calls the kernel (whole tensor, or row by row through a line buffer when streamed).
// What it shares with DEPTHWISE_CONV_2D is in conv_common.h.
#include "conv_common.h"
#include "kernels/conv/conv_limits.h"

namespace tinyforge::rt::ops {

Status Validate_conv(const OpContext& op) {
  TF_RT_TRY(ExpectCounts(op, abi::kConvOperands, abi::ParamCount<s8_conv_params>()));
  s8_conv_params p{};
  abi::DecodeParams(op, &p);
  return conv_common::Validate<OpKind::kConv>(
      op, p, s8_conv_check(p),
      [](const s8_conv_params& q) { return Product(q.out_c, q.k_h, q.k_w, q.filter_in_c); });
}

Status Run_conv(const OpContext& op) { return conv_common::Run<s8_conv_params>(op); }

}  // namespace tinyforge::rt::ops
