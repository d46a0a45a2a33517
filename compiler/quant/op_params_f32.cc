// The kernel parameters of the float ops of a lowered graph (kernels/f32): the float
// fallback (unary, binary, cumsum) and a float model's ops (fold-float, docs/decisions.md 52,
// 68). Split from op_params.cc (the int8 ops'); the same declarations (quant/op_params.h).
#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <tuple>

#include "ir/shape_inference.h"
#include "kernels/f32/f32_limits.h"
#include "quant/op_params.h"
#include "quant/params_check.h"

namespace tinyforge::quant {
namespace {

using ir::Graph;
using ir::Layout;
using ir::Op;
using ir::OpType;
using ir::Tensor;

using detail::Dims;
using detail::I32;

}  // namespace

Expected<f32_unary_params> F32UnaryParams(const Graph& g, const Op& op) {
  const f32_unary_params p{I32(g.tensor(op.inputs[0]).num_elements()),
                           static_cast<int32_t>(op.attrs_as<ir::FloatFnAttrs>().fn)};
  if (const char* why = f32_unary_check(p)) return Error(std::string("unary: ") + why);
  return p;
}

Expected<f32_binary_params> F32BinaryParams(const Graph& g, const Op& op) {
  TF_ASSIGN_OR_RETURN(s8_broadcast_shape s,
                      quant::MakeBroadcastShape(Dims(g.tensor(op.inputs[0]).shape),
                                                Dims(g.tensor(op.inputs[1]).shape)));
  const f32_binary_params p{s, static_cast<int32_t>(op.attrs_as<ir::FloatFnAttrs>().fn)};
  if (const char* why = f32_binary_check(p)) return Error(std::string("binary: ") + why);
  return p;
}

Expected<f32_cumsum_params> F32CumsumParams(const Graph& g, const Op& op) {
  const ir::Shape& s = g.tensor(op.inputs[0]).shape;
  const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(s.size()));
  const auto axis = ir::NormalizeAxis(op.attrs_as<ir::CumsumAttrs>().axis, rank);
  if (!axis) return Error("cumsum: axis out of range");
  int64_t outer = 1, length = 1, inner = 1;
  for (size_t d = 0; d < s.size(); ++d) {
    const int64_t a = static_cast<int64_t>(d);
    (a < *axis ? outer : a == *axis ? length : inner) *= s[d];
  }
  const f32_cumsum_params p{I32(outer), I32(length), I32(inner)};
  if (const char* why = f32_cumsum_check(p)) return Error(std::string("cumsum: ") + why);
  return p;
}

// Float model layers (fold-float): geometry in the kernels' NHWC terms whatever the op's
// layout (the executor transposes an NCHW op's data), the clamp as float32.
Expected<f32_conv_params> F32ConvParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::FConv2dAttrs>();
  const bool nhwc = a.layout == Layout::kNHWC;
  const ir::Shape& x = g.tensor(op.inputs[0]).shape;
  const ir::Shape& w = g.tensor(op.inputs[1]).shape;
  const ir::Shape& y = g.tensor(op.outputs[0]).shape;
  if (x.size() != 4 || w.size() != 4 || y.size() != 4) {
    return Error(std::string(ir::OpTypeName(op.type)) + ": needs rank-4 x, w and y");
  }
  f32_conv_params p{};
  p.batches = I32(x[0]);
  p.in_h = I32(x[nhwc ? 1 : 2]), p.in_w = I32(x[nhwc ? 2 : 3]), p.in_c = I32(x[nhwc ? 3 : 1]);
  p.out_h = I32(y[nhwc ? 1 : 2]), p.out_w = I32(y[nhwc ? 2 : 3]), p.out_c = I32(y[nhwc ? 3 : 1]);
  // OHWI / OIHW for fconv2d, 1HWC / [C*m,1,kh,kw] for fdwconv2d: kh, kw at the same places.
  p.k_h = I32(w[nhwc ? 1 : 2]), p.k_w = I32(w[nhwc ? 2 : 3]);
  p.stride_h = I32(a.stride[0]), p.stride_w = I32(a.stride[1]);
  p.dilation_h = I32(a.dilation[0]), p.dilation_w = I32(a.dilation[1]);
  p.pad_top = I32(a.padding[0]), p.pad_left = I32(a.padding[1]);
  p.act_min = static_cast<float>(a.act_min), p.act_max = static_cast<float>(a.act_max);
  const bool dw = op.type == OpType::kFDwConv2d;
  if (const char* why = dw ? f32_dwconv_check(p) : f32_conv_check(p)) {
    return Error(std::string(ir::OpTypeName(op.type)) + ": " + why);
  }
  return p;
}

Expected<f32_fc_params> F32FcParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::FFcAttrs>();
  const ir::Tensor& x = g.tensor(op.inputs[0]);
  const ir::Shape& w = g.tensor(op.inputs[1]).shape;
  if (w.size() != 2 || x.shape.empty() || w[1] == 0) return Error("ffc: needs w [out, in]");
  f32_fc_params p{};
  p.batches = I32(x.num_elements() / w[1]);
  p.in_features = I32(w[1]);
  p.out_features = I32(w[0]);
  p.act_min = static_cast<float>(a.act_min), p.act_max = static_cast<float>(a.act_max);
  if (const char* why = f32_fc_check(p)) return Error(std::string("ffc: ") + why);
  return p;
}

Expected<f32_pool_params> F32PoolParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::FPool2dAttrs>();
  const bool nhwc = a.layout == Layout::kNHWC;
  const ir::Shape& x = g.tensor(op.inputs[0]).shape;
  const ir::Shape& y = g.tensor(op.outputs[0]).shape;
  if (x.size() != 4 || y.size() != 4) {
    return Error(std::string(ir::OpTypeName(op.type)) + ": needs rank-4 x and y");
  }
  f32_pool_params p{};
  p.batches = I32(x[0]);
  p.in_h = I32(x[nhwc ? 1 : 2]), p.in_w = I32(x[nhwc ? 2 : 3]), p.channels = I32(x[nhwc ? 3 : 1]);
  p.out_h = I32(y[nhwc ? 1 : 2]), p.out_w = I32(y[nhwc ? 2 : 3]);
  p.filter_h = I32(a.kernel[0]), p.filter_w = I32(a.kernel[1]);
  p.stride_h = I32(a.stride[0]), p.stride_w = I32(a.stride[1]);
  p.pad_top = I32(a.padding[0]), p.pad_left = I32(a.padding[1]);
  if (const char* why = f32_pool_check(p)) {
    return Error(std::string(ir::OpTypeName(op.type)) + ": " + why);
  }
  return p;
}

// A float model's other ops (fold-float, docs/decisions.md 68).
Expected<f32_reduce_params> F32ReduceParams(const Graph& g, const Op& op) {
  // (the reduction's view as the int8 max's: x as the kernel reads it)
  TF_ASSIGN_OR_RETURN(const s8_reduce_max_params r, ReduceMaxParams(g, op));
  const int32_t kind = op.type == OpType::kSum ? 0 : op.type == OpType::kMean ? 1 : 2;
  const f32_reduce_params p{r.outer, r.reduce_size, r.inner, kind};
  if (const char* why = f32_reduce_check(p)) {
    return Error(std::string(ir::OpTypeName(op.type)) + ": " + why);
  }
  return p;
}

// x viewed as [outer, length, inner] around `axis` (normalized; rank 0 is one element).
static Expected<std::array<int64_t, 3>> AroundAxis(const ir::Shape& s, int64_t axis,
                                                   const char* what) {
  const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(s.size()));
  const auto a = ir::NormalizeAxis(axis, rank);
  if (!a) return Error(std::string(what) + ": axis out of range");
  std::array<int64_t, 3> v{1, 1, 1};
  for (size_t d = 0; d < s.size(); ++d) {
    const int64_t i = static_cast<int64_t>(d);
    v[i < *a ? 0 : i == *a ? 1 : 2] *= s[d];
  }
  return v;
}

Expected<f32_softmax_params> F32SoftmaxParams(const Graph& g, const Op& op) {
  TF_ASSIGN_OR_RETURN(auto v, AroundAxis(g.tensor(op.inputs[0]).shape,
                                         op.attrs_as<ir::SoftmaxAttrs>().axis, "softmax"));
  const f32_softmax_params p{I32(v[0]), I32(v[1]), I32(v[2])};
  if (const char* why = f32_softmax_check(p)) return Error(std::string("softmax: ") + why);
  return p;
}

Expected<f32_argmax_params> F32ArgMaxParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::ArgMaxAttrs>();
  TF_ASSIGN_OR_RETURN(auto v, AroundAxis(g.tensor(op.inputs[0]).shape, a.axis, "argmax"));
  const f32_argmax_params p{I32(v[0]), I32(v[1]), I32(v[2]), a.min ? 1 : 0};
  if (const char* why = f32_argmax_check(p)) return Error(std::string("argmax: ") + why);
  return p;
}

Expected<f32_layernorm_params> F32LayerNormParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::LayerNormAttrs>();
  const Tensor& x = g.tensor(op.inputs[0]);
  if (x.shape.empty() || x.shape.back() == 0) return Error("layer_norm: needs a last dim");
  const int64_t depth = x.shape.back();
  const f32_layernorm_params p{I32(x.num_elements() / depth), I32(depth),
                               static_cast<float>(a.eps), a.rms ? 1 : 0};
  if (const char* why = f32_layernorm_check(p)) return Error(std::string("layer_norm: ") + why);
  return p;
}

Expected<F32ResizeKernelParams> F32ResizeParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::ResizeAttrs>();
  const ir::Shape& x = g.tensor(op.inputs[0]).shape;
  const ir::Shape& y = g.tensor(op.outputs[0]).shape;
  if (x.size() != 4 || y.size() != 4) return Error{"resize: needs rank-4 tensors"};
  const bool nhwc = a.layout == ir::Layout::kNHWC;
  F32ResizeKernelParams r;
  f32_resize_params& p = r.params;
  p.batches = I32(x[0]);
  p.input_h = I32(x[nhwc ? 1 : 2]), p.input_w = I32(x[nhwc ? 2 : 3]);
  p.channels = I32(x[nhwc ? 3 : 1]);
  p.output_h = I32(y[nhwc ? 1 : 2]), p.output_w = I32(y[nhwc ? 2 : 3]);
  if (const char* why = f32_resize_check(p)) return Error(std::string("resize: ") + why);
  for (const auto& [in, out, scale] : {std::tuple{p.input_h, p.output_h, a.scale_h},
                                       std::tuple{p.input_w, p.output_w, a.scale_w}}) {
    for (const quant::ResizeTap& t : quant::ResizeFloatTaps(in, out, scale, a.bilinear,
                                                            a.align_corners,
                                                            a.half_pixel_centers)) {
      int32_t bits;
      std::memcpy(&bits, &t.w, sizeof bits);
      r.table.insert(r.table.end(), {t.lo, t.hi, bits});
    }
  }
  if (const char* why = f32_resize_check_table(p, r.table.data())) {
    return Error(std::string("resize: ") + why);
  }
  return r;
}

Expected<f32_bmm_params> F32BmmParams(const Graph& g, const Op& op) {
  const ir::Shape& a = g.tensor(op.inputs[0]).shape;
  const ir::Shape& b = g.tensor(op.inputs[1]).shape;
  const ir::Shape& y = g.tensor(op.outputs[0]).shape;
  if (a.size() < 2 || b.size() < 2 || y.size() < 2) {
    return Error("matmul: needs operands of rank 2 or more");
  }
  auto batch = [](const ir::Shape& s) {
    int64_t n = 1;
    for (size_t d = 0; d + 2 < s.size(); ++d) n *= s[d];
    return n;
  };
  const int64_t n = batch(y), na = batch(a), nb = batch(b);
  if ((na != n && na != 1) || (nb != n && nb != 1)) {
    return Error("matmul: each operand must hold all of the batch or one matrix (a batch "
                 "broadcast across several dims has no float kernel)");
  }
  const f32_bmm_params p{I32(n), I32(a[a.size() - 2]), I32(a.back()), I32(b.back()),
                         na == n ? 0 : 1, nb == n ? 0 : 1};
  if (const char* why = f32_bmm_check(p)) return Error(std::string("matmul: ") + why);
  return p;
}

}  // namespace tinyforge::quant
