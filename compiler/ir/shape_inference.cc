#include "ir/shape_inference.h"
#include "ir/unary_fn.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "ir/shape_inference_internal.h"
#include "support/text.h"

namespace tinyforge::ir {
namespace {

// Attribute values are bounded so that every size computation below stays far inside
// int64 (kernel * dilation < 2^62): a hostile file cannot cause signed overflow.
constexpr int64_t kMaxAttr = kMaxElements;

std::string Str(const Shape& s) { return FormatInts(s); }

Error AttrError(const char* field, const std::string& what) {
  return Error(std::string("attrs.") + field + ": " + what);
}

Status CheckPositive(const char* field, std::span<const int64_t> v) {
  for (int64_t x : v) {
    if (x < 1 || x > kMaxAttr) {
      return AttrError(
          field, "values must be in [1, " + std::to_string(kMaxAttr) + "], got " + FormatInts(v));
    }
  }
  return OkStatus();
}

Status CheckPadding(std::span<const int64_t> pad) {
  for (int64_t x : pad) {
    if (x < 0 || x > kMaxAttr) {
      return AttrError("padding", "values must be >= 0, got " + FormatInts(pad));
    }
  }
  return OkStatus();
}

Status CheckRank(size_t index, const Shape& s, size_t min_rank, size_t max_rank,
                 const char* layout) {
  if (s.size() < min_rank || s.size() > max_rank) {
    return Error("inputs[" + std::to_string(index) + "]: expected " + layout + ", got shape " +
                 Str(s));
  }
  return OkStatus();
}

Expected<std::vector<Shape>> Conv2d(const Conv2dAttrs& a, std::span<const Shape> in) {
  TF_RETURN_IF_ERROR(CheckRank(0, in[0], 4, 4, "x as [N,C,H,W]"));
  TF_RETURN_IF_ERROR(CheckRank(1, in[1], 4, 4, "w as [O,C/groups,kh,kw]"));
  TF_RETURN_IF_ERROR(CheckPositive("stride", a.stride));
  TF_RETURN_IF_ERROR(CheckPositive("dilation", a.dilation));
  TF_RETURN_IF_ERROR(CheckPadding(a.padding));
  const Shape& x = in[0];
  const Shape& w = in[1];
  if (a.groups < 1 || x[1] % a.groups != 0 || w[0] % a.groups != 0) {
    return AttrError("groups", std::to_string(a.groups) + " must be >= 1 and divide input " +
                                   "channels " + std::to_string(x[1]) + " and output channels " +
                                   std::to_string(w[0]));
  }
  if (w[1] != x[1] / a.groups) {
    return Error("inputs[1]: weight shape " + Str(w) + " needs dim 1 = C/groups = " +
                 std::to_string(x[1] / a.groups) + " for input " + Str(x));
  }
  if (in.size() == 3 && in[2] != Shape{w[0]}) {
    return Error("inputs[2]: bias shape " + Str(in[2]) + ", expected [" + std::to_string(w[0]) +
                 "]");
  }
  const int64_t oh =
      ConvOutputSize(x[2], w[2], a.padding[0], a.padding[2], a.stride[0], a.dilation[0]);
  const int64_t ow =
      ConvOutputSize(x[3], w[3], a.padding[1], a.padding[3], a.stride[1], a.dilation[1]);
  if (oh < 1 || ow < 1) {
    return Error("inputs[1]: kernel " + Str(w) + " with this dilation does not fit the padded " +
                 "input " + Str(x));
  }
  return std::vector<Shape>{{x[0], w[0], oh, ow}};
}

Expected<std::vector<Shape>> Linear(std::span<const Shape> in) {
  TF_RETURN_IF_ERROR(CheckRank(0, in[0], 1, kMaxRank, "x as [..., in]"));
  TF_RETURN_IF_ERROR(CheckRank(1, in[1], 2, 2, "w as [out, in]"));
  const Shape& x = in[0];
  const Shape& w = in[1];
  if (w[1] != x.back()) {
    return Error("inputs[1]: weight shape " + Str(w) + " needs dim 1 = " +
                 std::to_string(x.back()) + " (last dim of input " + Str(x) + ")");
  }
  if (in.size() == 3 && in[2] != Shape{w[0]}) {
    return Error("inputs[2]: bias shape " + Str(in[2]) + ", expected [" + std::to_string(w[0]) +
                 "]");
  }
  Shape y = x;
  y.back() = w[0];
  return std::vector<Shape>{y};
}

// Pools work on [N,C,H,W] or [C,H,W]: the last two dims are spatial, as in PyTorch.
Expected<std::vector<Shape>> Pool(const Shape& x, const Vec2& kernel, const Vec2& stride,
                                  const Pad4& pad, const Vec2& dilation, bool ceil_mode) {
  TF_RETURN_IF_ERROR(CheckRank(0, x, 3, 4, "x as [N,C,H,W] or [C,H,W]"));
  TF_RETURN_IF_ERROR(CheckPositive("kernel", kernel));
  TF_RETURN_IF_ERROR(CheckPositive("stride", stride));
  TF_RETURN_IF_ERROR(CheckPositive("dilation", dilation));
  TF_RETURN_IF_ERROR(CheckPadding(pad));
  // PyTorch: "pad should be smaller than or equal to half of kernel size", for each side.
  for (int side = 0; side < 4; ++side) {
    if (pad[side] > kernel[side % 2] / 2) {
      return AttrError("padding", FormatInts(pad) + " exceeds half the kernel " +
                                      FormatInts(kernel) + " (PyTorch requires pad <= k/2)");
    }
  }
  const size_t h = x.size() - 2;
  Shape y = x;
  y[h] = PoolOutputSize(x[h], kernel[0], pad[0], pad[2], stride[0], dilation[0], ceil_mode);
  y[h + 1] = PoolOutputSize(x[h + 1], kernel[1], pad[1], pad[3], stride[1], dilation[1], ceil_mode);
  if (y[h] < 1 || y[h + 1] < 1) {
    return Error("inputs[0]: kernel " + FormatInts(kernel) + " does not fit input " + Str(x));
  }
  return std::vector<Shape>{y};
}

Expected<std::vector<Shape>> Mean(const MeanAttrs& a, const Shape& x) {
  TF_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                      NormalizeMeanDims(a, static_cast<int64_t>(x.size())));
  Shape y;
  for (size_t d = 0; d < x.size(); ++d) {
    const bool reduced = std::binary_search(dims.begin(), dims.end(), static_cast<int64_t>(d));
    if (!reduced) {
      y.push_back(x[d]);
    } else if (a.keepdim) {
      y.push_back(1);
    }
  }
  return std::vector<Shape>{y};
}

Expected<std::vector<Shape>> Slice(const SliceAttrs& a, const Shape& x) {
  if (a.begin.size() != x.size() || a.end.size() != x.size() || a.stride.size() != x.size()) {
    return AttrError("begin", "begin, end and stride need one entry per dim of " + Str(x));
  }
  Shape y(x.size());
  for (size_t d = 0; d < x.size(); ++d) {
    if (a.begin[d] < 0 || a.begin[d] >= a.end[d] || a.end[d] > x[d] || a.stride[d] < 1 ||
        a.stride[d] > kMaxElements) {
      return AttrError("begin", "dim " + std::to_string(d) + ": needs 0 <= begin < end <= " +
                                    std::to_string(x[d]) + " and stride >= 1, got " +
                                    std::to_string(a.begin[d]) + ":" + std::to_string(a.end[d]) +
                                    ":" + std::to_string(a.stride[d]));
    }
    y[d] = (a.end[d] - a.begin[d] + a.stride[d] - 1) / a.stride[d];
  }
  return std::vector<Shape>{y};
}

Expected<std::vector<Shape>> Resize(const ResizeAttrs& a, const Shape& x) {
  if (x.size() != 4) return Error("inputs[0]: resize needs a rank-4 input, got " + Str(x));
  for (int64_t d : a.size) {
    if (d < 1 || d > kMaxElements) {
      return AttrError("size", "each output dim must be in [1, " + std::to_string(kMaxElements) +
                                   "], got " + std::to_string(d));
    }
  }
  if (a.align_corners && a.half_pixel_centers) {
    return AttrError("align_corners", "align_corners and half_pixel_centers are exclusive");
  }
  if (!(a.scale_h >= 0.0) || !(a.scale_w >= 0.0) || a.scale_h > 1e9 || a.scale_w > 1e9) {
    return AttrError("scale_h", "scale_h and scale_w must be >= 0 (0: input / output size)");
  }
  Shape y = x;
  const bool nhwc = a.layout == Layout::kNHWC;
  y[nhwc ? 1 : 2] = a.size[0];
  y[nhwc ? 2 : 3] = a.size[1];
  return std::vector<Shape>{y};
}

Expected<std::vector<Shape>> Reshape(const ReshapeAttrs& a, const Shape& x) {
  if (a.shape.size() > static_cast<size_t>(kMaxRank)) {
    return AttrError("shape", FormatInts(a.shape) + " has more than 6 dims");
  }
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < a.shape.size(); ++i) {
    const int64_t d = a.shape[i];
    if (d == -1 && inferred < 0) {
      inferred = static_cast<int>(i);
    } else if (d < 1 || d > kMaxElements || (known *= d) > kMaxElements) {
      return AttrError("shape", FormatInts(a.shape) + ": dims must be >= 1, with at most one -1");
    }
  }
  Shape y = a.shape;
  const int64_t n = NumElements(x);
  if (inferred >= 0) {
    if (n % known != 0) {
      return AttrError("shape", FormatInts(a.shape) + " cannot hold the " + std::to_string(n) +
                                    " elements of " + Str(x));
    }
    y[static_cast<size_t>(inferred)] = n / known;
  } else if (known != n) {
    return AttrError("shape", FormatInts(a.shape) + " has " + std::to_string(known) +
                                  " elements, input " + Str(x) + " has " + std::to_string(n));
  }
  return std::vector<Shape>{y};
}

Expected<std::vector<Shape>> Cat(const CatAttrs& a, std::span<const Shape> in) {
  const Shape& first = in[0];
  const auto axis = NormalizeAxis(a.axis, static_cast<int64_t>(first.size()));
  if (first.empty() || !axis) {
    return AttrError("axis", std::to_string(a.axis) + " out of range for input " + Str(first));
  }
  Shape y = first;
  for (size_t i = 1; i < in.size(); ++i) {
    bool same = in[i].size() == first.size();
    for (size_t d = 0; same && d < first.size(); ++d) {
      same = static_cast<int64_t>(d) == *axis || in[i][d] == first[d];
    }
    if (!same) {
      return Error("inputs[" + std::to_string(i) + "]: shape " + Str(in[i]) + " does not match " +
                   Str(first) + " outside axis " + std::to_string(*axis));
    }
    y[static_cast<size_t>(*axis)] += in[i][static_cast<size_t>(*axis)];
  }
  if (!CheckedNumElements(y)) return Error("outputs[0]: concatenation is too large");
  return std::vector<Shape>{y};
}

}  // namespace

int64_t ConvOutputSize(int64_t in, int64_t kernel, int64_t pad_before, int64_t pad_after,
                       int64_t stride, int64_t dilation) {
  const int64_t num = in + pad_before + pad_after - dilation * (kernel - 1) - 1;
  if (num < 0) return 0;  // floor division of a negative numerator: no output at all
  return num / stride + 1;
}

int64_t PoolOutputSize(int64_t in, int64_t kernel, int64_t pad_before, int64_t pad_after,
                       int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t num =
      in + pad_before + pad_after - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  if (num < 0) return 0;
  int64_t out = num / stride + 1;
  // PyTorch: "ensure that the last pooling starts inside the image".
  if (ceil_mode && (out - 1) * stride >= in + pad_before) --out;
  return out;
}

std::optional<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

Expected<std::vector<int64_t>> NormalizeMeanDims(const MeanAttrs& a, int64_t rank) {
  if (a.dims.empty()) {
    return AttrError("dims", "empty (list the reduced dims explicitly)");
  }
  std::vector<int64_t> dims;
  for (int64_t d : a.dims) {
    const auto n = NormalizeAxis(d, rank);
    if (!n) {
      return AttrError("dims",
                       std::to_string(d) + " out of range for rank " + std::to_string(rank));
    }
    dims.push_back(*n);
  }
  std::sort(dims.begin(), dims.end());
  if (std::adjacent_find(dims.begin(), dims.end()) != dims.end()) {
    return AttrError("dims", FormatInts(a.dims) + " names a dim twice");
  }
  return dims;
}

Expected<std::vector<Shape>> InferShapes(OpType type, const Attrs& attrs,
                                         std::span<const Shape> in) {
  const OpTypeInfo& info = GetOpTypeInfo(type);
  const int n = static_cast<int>(in.size());
  if (n < info.min_inputs || (info.max_inputs != kVariadic && n > info.max_inputs)) {
    return Error("inputs: " + std::string(info.name) + " takes " + std::to_string(info.min_inputs) +
                 (info.max_inputs == kVariadic         ? std::string(" or more")
                  : info.max_inputs == info.min_inputs ? std::string()
                                                       : " to " + std::to_string(info.max_inputs)) +
                 " inputs, got " + std::to_string(n));
  }
  if (!AttrsMatch(type, attrs)) {
    return Error("attrs: do not belong to op type " + std::string(info.name));
  }
  switch (type) {
    case OpType::kConv2d:
      return Conv2d(std::get<Conv2dAttrs>(attrs), in);
    case OpType::kLinear:
      return Linear(in);
    case OpType::kHardtanh: {
      const auto& a = std::get<HardtanhAttrs>(attrs);
      if (!(a.min <= a.max) || !std::isfinite(a.min) || !std::isfinite(a.max)) {
        return AttrError("min", "min " + FormatDouble(a.min) + " and max " + FormatDouble(a.max) +
                                    " must be finite with min <= max");
      }
      return std::vector<Shape>{in[0]};
    }
    case OpType::kHardswish:
    case OpType::kHardsigmoid:
    case OpType::kSilu:
    case OpType::kGelu:
    case OpType::kElu:
    case OpType::kLeakyRelu:
    case OpType::kMish:
    case OpType::kSoftplus:
    case OpType::kLogSigmoid:
    case OpType::kHardshrink:
    case OpType::kSoftshrink:
    case OpType::kThreshold:
    case OpType::kSquare: {
      const std::string why = CheckUnaryFnAttrs(type, attrs);
      if (!why.empty()) return Error("attrs: " + why);
      return std::vector<Shape>{in[0]};
    }
    case OpType::kRelu:
    case OpType::kSigmoid:
    case OpType::kTanh:
    case OpType::kQuantize:
    case OpType::kDequantize:
      return std::vector<Shape>{in[0]};
    case OpType::kArgMax: {
      const auto& a = std::get<ArgMaxAttrs>(attrs);
      const int64_t rank = static_cast<int64_t>(in[0].size());
      const auto axis = rank == 0 ? std::nullopt : NormalizeAxis(a.axis, rank);
      if (!axis) {
        return AttrError("axis", std::to_string(a.axis) + " out of range for input " + Str(in[0]));
      }
      Shape y = in[0];
      if (a.keepdim) {
        y[static_cast<size_t>(*axis)] = 1;
      } else {
        y.erase(y.begin() + *axis);
      }
      return std::vector<Shape>{y};
    }
    case OpType::kGather: {
      const int64_t axis = std::get<GatherAttrs>(attrs).axis;
      const int64_t rank = static_cast<int64_t>(in[0].size());
      const auto ax = rank == 0 ? std::nullopt : NormalizeAxis(axis, rank);
      if (!ax) {
        return AttrError("axis", std::to_string(axis) + " out of range for input " + Str(in[0]));
      }
      Shape y(in[0].begin(), in[0].begin() + *ax);
      y.insert(y.end(), in[1].begin(), in[1].end());
      y.insert(y.end(), in[0].begin() + *ax + 1, in[0].end());
      if (y.size() > 6) return Error("gather: the output would have rank " +
                                     std::to_string(y.size()) + " (at most 6)");
      return std::vector<Shape>{y};
    }
    case OpType::kSoftmax:
    case OpType::kCumsum: {
      const int64_t axis = type == OpType::kSoftmax ? std::get<SoftmaxAttrs>(attrs).axis
                                                     : std::get<CumsumAttrs>(attrs).axis;
      // Like PyTorch, a scalar behaves as rank 1 here (dim 0 or -1).
      const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(in[0].size()));
      if (!NormalizeAxis(axis, rank)) {
        return AttrError("axis", std::to_string(axis) + " out of range for input " + Str(in[0]));
      }
      return std::vector<Shape>{in[0]};
    }
    case OpType::kLayerNorm: {
      const auto& a = std::get<LayerNormAttrs>(attrs);
      if (!(a.eps >= 0.0) || !std::isfinite(a.eps)) {
        return AttrError("eps", "must be finite and >= 0");
      }
      if (in[0].empty()) return Error("inputs[0]: layer_norm needs at least one dimension");
      for (size_t i = 1; i < in.size(); ++i) {
        if (in[i] != Shape{in[0].back()}) {
          return Error("inputs[" + std::to_string(i) + "]: must have shape [" +
                       std::to_string(in[0].back()) + "] (the last dim), got " + Str(in[i]));
        }
      }
      return std::vector<Shape>{in[0]};
    }
    case OpType::kMaxPool2d: {
      const auto& a = std::get<MaxPool2dAttrs>(attrs);
      return Pool(in[0], a.kernel, a.stride, a.padding, a.dilation, a.ceil_mode);
    }
    case OpType::kAvgPool2d: {
      const auto& a = std::get<AvgPool2dAttrs>(attrs);
      if (a.divisor_override < 0 || a.divisor_override > kMaxAttr) {
        return AttrError("divisor_override",
                         std::to_string(a.divisor_override) + " must be >= 0 (0 = none)");
      }
      return Pool(in[0], a.kernel, a.stride, a.padding, Vec2{1, 1}, a.ceil_mode);
    }
    case OpType::kMean:
    case OpType::kSum:
    case OpType::kAmax:
      return Mean(std::get<MeanAttrs>(attrs), in[0]);
    case OpType::kPad:  // qpad's shape rule (the value does not change the shape)
      return internal::InferLoweredShapes(
          OpType::kQPad, QPadAttrs{std::get<PadAttrs>(attrs).padding, 0}, in);
    case OpType::kMatmul:  // qbmm's shape rule without transposed operands
      return internal::InferLoweredShapes(OpType::kQBmm, QBmmAttrs{}, in);
    case OpType::kReshape:
      return Reshape(std::get<ReshapeAttrs>(attrs), in[0]);
    case OpType::kPrelu:  // torch.prelu: the slopes [C] along dim 1
      if (in[0].size() < 2 || in[1] != Shape{in[0][1]}) {
        return Error("inputs[1]: slopes " + Str(in[1]) + ", expected [C] for x " + Str(in[0]));
      }
      return std::vector<Shape>{in[0]};
    case OpType::kUnary:
    case OpType::kBinary: {
      const FloatFn fn = std::get<FloatFnAttrs>(attrs).fn;
      const int arity = type == OpType::kUnary ? 1 : 2;
      if (FloatFnArity(fn) != arity) {
        return AttrError("fn", std::string(FloatFnName(fn)) + " is a function of " +
                                   std::to_string(FloatFnArity(fn)) + " input(s), not of " +
                                   std::to_string(arity));
      }
      if (type == OpType::kUnary) return std::vector<Shape>{in[0]};
      TF_ASSIGN_OR_RETURN(Shape y, internal::Broadcast(in[0], in[1]));
      return std::vector<Shape>{y};
    }
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kMaximum:
    case OpType::kMinimum: {
      TF_ASSIGN_OR_RETURN(Shape y, internal::Broadcast(in[0], in[1]));
      return std::vector<Shape>{y};
    }
    case OpType::kCat:
      return Cat(std::get<CatAttrs>(attrs), in);
    case OpType::kSlice:
      return Slice(std::get<SliceAttrs>(attrs), in[0]);
    case OpType::kResize:
      return Resize(std::get<ResizeAttrs>(attrs), in[0]);
    case OpType::kQConv2d:
    case OpType::kQDwConv2d:
    case OpType::kQFc:
    case OpType::kQAvgPool2d:
    case OpType::kQMaxPool2d:
    case OpType::kQAdd:
    case OpType::kQMul:
    case OpType::kQSub:
    case OpType::kQMaximum:
    case OpType::kQPrelu:
    case OpType::kQMinimum:
    case OpType::kQSquaredDifference:
    case OpType::kQMean:
    case OpType::kQSoftmax:
    case OpType::kQLayerNorm:
    case OpType::kQLut:
    case OpType::kQConcat:
    case OpType::kQPad:
    case OpType::kQSum:
    case OpType::kQReduceMax:
    case OpType::kQBmm:
    case OpType::kQLstm:
    case OpType::kFConv2d:
    case OpType::kFDwConv2d:
    case OpType::kFFc:
    case OpType::kFAvgPool2d:
    case OpType::kFMaxPool2d:
    case OpType::kRequantize:
    case OpType::kTranspose:
      return internal::InferLoweredShapes(type, attrs, in);
  }
  return Error("unknown op type");
}

Expected<std::vector<Shape>> InferShapes(const Graph& g, const Op& op) {
  std::vector<Shape> shapes;
  shapes.reserve(op.inputs.size());
  for (TensorId t : op.inputs) shapes.push_back(g.tensor(t).shape);
  return InferShapes(op.type, op.attrs, shapes);
}

}  // namespace tinyforge::ir
