// DEPTHWISE_CONV_2D op glue: validates the op record at init, rebuilds s8_dwconv_params on the
// stack and calls the kernel (whole tensor, or row by row through a line buffer when streamed).
// Validation and execution are CONV_2D's, on the same layout (conv_common.h; defined in conv.cc).
#include "conv_common.h"
#include "kernels/dwconv/dwconv_limits.h"

namespace tinyforge::rt::ops {

namespace {
// Flattened: the check's texts (the compiler's messages) fold away.
[[gnu::flatten]] Status CheckDwconv(const s8_dwconv_params& p) {
  return CheckParams(s8_dwconv_check(p));
}
}  // namespace

Status Validate_dwconv(const OpContext& op) {
  s8_conv_params c{};
  TF_RT_TRY(conv_common::Decode(op, &c));
  const s8_dwconv_params p = conv_common::AsDwconv(c);
  TF_RT_TRY(CheckDwconv(p));
  return conv_common::Validate(op, c, OpKind::kDwconv, conv_common::kDwconvKernel,
                               Product(p.k_h, p.k_w, p.out_c));
}

Status Run_dwconv(const OpContext& op) { return conv_common::Run(op, OpKind::kDwconv); }

}  // namespace tinyforge::rt::ops
