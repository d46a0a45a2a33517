// CONV_2D -> qconv2d, DEPTHWISE_CONV_2D -> qdwconv2d, FULLY_CONNECTED -> qfc.
// Weights stay as TFLite stores them (OHWI, 1HWC, [out, in]); per-channel multipliers and
// shifts come from compiler/quant (TFLM's PopulateConvolutionQuantizationParams /
// CalculateOpDataFullyConnected arithmetic) and travel as int32 constant inputs.
#include "import/tflite/tflite_lower_internal.h"

namespace tinyforge::import::tflite::internal {
namespace {

constexpr int8_t kConv2DOptions = 1;
constexpr int8_t kDepthwiseConv2DOptions = 2;
constexpr int8_t kFullyConnectedOptions = 8;
// Common operand checks of CONV_2D and DEPTHWISE_CONV_2D: x int8 [N,H,W,C], w int8
// constant rank 4 with zero points 0 and 1 or `channels` scales on `axis`, optional bias
// int32 constant [channels], y int8 rank 4.
Status CheckConvOperands(const Lowering& l, int64_t channel_axis) {
  TF_RETURN_IF_ERROR(l.ExpectCounts(2, 3, 1));
  const TfTensor* x = l.In(0);
  const TfTensor* w = l.In(1);
  const TfTensor* y = l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(x, "inputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectRank(x, "inputs[0]", 4));
  TF_RETURN_IF_ERROR(l.ExpectAct(y, "outputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectRank(y, "outputs[0]", 4));
  if (w->type != static_cast<int8_t>(TfType::kInt8)) {
    return l.Fail("inputs[1]: filter type " + TfTypeName(w->type) + ", expected INT8");
  }
  TF_RETURN_IF_ERROR(l.ExpectConstant(w, "inputs[1]"));
  TF_RETURN_IF_ERROR(l.ExpectRank(w, "inputs[1]", 4));
  if (!w->quant) return l.Fail("inputs[1]: filter without quantization parameters");
  const int64_t channels = w->shape[static_cast<size_t>(channel_axis)];
  if (w->quant->per_channel() && w->quant->axis != channel_axis) {
    return l.Fail("inputs[1]: quantized_dimension " + std::to_string(w->quant->axis) +
                  ", expected " + std::to_string(channel_axis));
  }
  for (size_t i = 0; i < w->quant->zero_point.size(); ++i) {
    if (w->quant->zero_point[i] != 0) {
      return l.Fail("inputs[1]: quantization.zero_point[" + std::to_string(i) + "]: " +
                    std::to_string(w->quant->zero_point[i]) + ", int8 filters are symmetric (0)");
    }
  }
  if (const TfTensor* b = l.In(2)) {
    if (b->type != static_cast<int8_t>(TfType::kInt32)) {
      return l.Fail("inputs[2]: bias type " + TfTypeName(b->type) + ", expected INT32");
    }
    TF_RETURN_IF_ERROR(l.ExpectConstant(b, "inputs[2]"));
    if (b->shape != std::vector<int32_t>{static_cast<int32_t>(channels)}) {
      return l.Fail("inputs[2]: bias shape " + ShapeText(b->shape) + ", expected [" +
                    std::to_string(channels) + "]");
    }
  }
  const int8_t qbt = l.op().options.quantized_bias_type;
  if (qbt != static_cast<int8_t>(TfType::kFloat32) && qbt != static_cast<int8_t>(TfType::kInt32)) {
    return l.Fail("quantized_bias_type: " + TfTypeName(qbt) + " is not supported (INT32 only)");
  }
  return OkStatus();
}

// The bias input: the model's, or an int32 zero vector when the op has none.
ir::TensorId BiasInput(Lowering& l, int64_t channels) {
  if (l.In(2)) return l.Tensor(l.InIndex(2));
  return l.AddInt32(TfliteOpName(l.index(), l.op().name()) + ".zero_bias",
                    std::vector<int32_t>(static_cast<size_t>(channels), 0));
}

// What CONV_2D and DEPTHWISE_CONV_2D share once their filter checks passed: the spatial
// geometry and output shape, the fused activation, the quant parameters (TFLM's Prepare,
// `make`), and the lowered op with its multipliers. `family(spec, attrs)` sets the one field
// that differs (groups / depth multiplier).
template <class Spec, class Attrs, class Make, class Family>
Status LowerConvLike(Lowering& l, ir::OpType type, int32_t in_c, int32_t out_c, Make make,
                     Family family) {
  const TfOptions& o = l.op().options;
  const TfTensor& x = *l.In(0);
  const TfTensor& w = *l.In(1);
  const TfTensor& y = *l.Out(0);
  TF_ASSIGN_OR_RETURN(Dim h, SpatialDim(l, "h", x.shape[1], w.shape[1], o.stride_h,
                                        o.dilation_h, o.padding));
  TF_ASSIGN_OR_RETURN(Dim wd, SpatialDim(l, "w", x.shape[2], w.shape[2], o.stride_w,
                                         o.dilation_w, o.padding));
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(
      {x.shape[0], static_cast<int32_t>(h.out), static_cast<int32_t>(wd.out), out_c}));
  auto act = FusedActivation(o.activation);
  if (!act.ok()) return l.Fail(act.error().message());
  Spec spec;
  Attrs a;
  spec.batches = x.shape[0];
  spec.in_h = x.shape[1];
  spec.in_w = x.shape[2];
  spec.in_c = in_c;
  spec.k_h = w.shape[1];
  spec.k_w = w.shape[2];
  spec.stride_h = o.stride_h;
  spec.stride_w = o.stride_w;
  spec.dilation_h = o.dilation_h;
  spec.dilation_w = o.dilation_w;
  spec.padding = {static_cast<int32_t>(h.before), static_cast<int32_t>(wd.before),
                  static_cast<int32_t>(h.after), static_cast<int32_t>(wd.after)};
  spec.activation = *act;
  family(spec, a);
  auto params = make(spec, Q(x), Scales(w), Q(y));
  if (!params.ok()) return l.Fail(params.error().message());

  a.stride = {o.stride_h, o.stride_w};
  a.padding = {h.before, wd.before, h.after, wd.after};
  a.dilation = {o.dilation_h, o.dilation_w};
  a.act_min = params->params.act_min;
  a.act_max = params->params.act_max;
  a.layout = ir::Layout::kNHWC;
  const ir::TensorId xi = l.Tensor(l.InIndex(0)), wi = l.Tensor(l.InIndex(1));
  const ir::TensorId bi = BiasInput(l, out_c);
  const ir::TensorId yi = l.Tensor(l.op().outputs[0]);
  ir::Op& op = l.AddOp(type, {xi, wi, bi}, {yi}, a);
  l.AddRequantInputs(op, params->multiplier, params->shift);
  return OkStatus();
}

}  // namespace

Status LowerConv2d(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(kConv2DOptions, false));
  TF_RETURN_IF_ERROR(CheckConvOperands(l, 0));
  const TfTensor& x = *l.In(0);
  const TfTensor& w = *l.In(1);
  const int32_t in_c = x.shape[3], out_c = w.shape[0], filter_c = w.shape[3];
  if (in_c % filter_c != 0) {
    return l.Fail("inputs[1]: filter depth " + std::to_string(filter_c) +
                  " does not divide the input depth " + std::to_string(in_c));
  }
  const int32_t groups = in_c / filter_c;
  if (out_c % groups != 0) {
    return l.Fail("inputs[1]: " + std::to_string(out_c) + " filters do not split into " +
                  std::to_string(groups) + " groups");
  }
  return LowerConvLike<quant::ConvSpec, ir::QConv2dAttrs>(
      l, ir::OpType::kQConv2d, in_c, out_c, quant::MakeConvParams,
      [&](quant::ConvSpec& spec, ir::QConv2dAttrs& a) {
        spec.out_c = out_c;
        spec.groups = a.groups = groups;
      });
}

Status LowerDepthwiseConv2d(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(kDepthwiseConv2DOptions, false));
  TF_RETURN_IF_ERROR(CheckConvOperands(l, 3));
  const TfOptions& o = l.op().options;
  const TfTensor& x = *l.In(0);
  const TfTensor& w = *l.In(1);
  if (w.shape[0] != 1) {
    return l.Fail("inputs[1]: filter shape " + ShapeText(w.shape) + ", expected [1,kh,kw,C*m]");
  }
  const int32_t in_c = x.shape[3], out_c = w.shape[3];
  if (out_c % in_c != 0) {
    return l.Fail("inputs[1]: " + std::to_string(out_c) +
                  " filter channels are not a multiple of the input depth " +
                  std::to_string(in_c));
  }
  const int32_t mult = out_c / in_c;
  if (o.depth_multiplier != 0 && o.depth_multiplier != mult) {
    return l.Fail("depth_multiplier: " + std::to_string(o.depth_multiplier) +
                  ", but the filter has " + std::to_string(out_c) + " channels for " +
                  std::to_string(in_c) + " input channels (" + std::to_string(mult) + ")");
  }
  return LowerConvLike<quant::DwConvSpec, ir::QDwConv2dAttrs>(
      l, ir::OpType::kQDwConv2d, in_c, out_c, quant::MakeDwConvParams,
      [&](quant::DwConvSpec& spec, ir::QDwConv2dAttrs& a) {
        spec.depth_multiplier = a.depth_multiplier = mult;
      });
}

Status LowerFullyConnected(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(kFullyConnectedOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(2, 3, 1));
  const TfOptions& o = l.op().options;
  const TfTensor& x = *l.In(0);
  const TfTensor& w = *l.In(1);
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectAct(&y, "outputs[0]"));
  if (w.type != static_cast<int8_t>(TfType::kInt8)) {
    return l.Fail("inputs[1]: weights type " + TfTypeName(w.type) + ", expected INT8");
  }
  TF_RETURN_IF_ERROR(l.ExpectConstant(&w, "inputs[1]"));
  TF_RETURN_IF_ERROR(l.ExpectRank(&w, "inputs[1]", 2));
  if (!w.quant) return l.Fail("inputs[1]: weights without quantization parameters");
  if (w.quant->per_channel() && w.quant->axis != 0) {
    return l.Fail("inputs[1]: quantized_dimension " + std::to_string(w.quant->axis) +
                  ", expected 0 (one scale per output feature)");
  }
  for (size_t i = 0; i < w.quant->zero_point.size(); ++i) {
    if (w.quant->zero_point[i] != 0) {
      return l.Fail("inputs[1]: quantization.zero_point[" + std::to_string(i) + "]: " +
                    std::to_string(w.quant->zero_point[i]) + ", int8 weights are symmetric (0)");
    }
  }
  const int32_t out_f = w.shape[0], in_f = w.shape[1];
  if (const TfTensor* b = l.In(2)) {
    if (b->type != static_cast<int8_t>(TfType::kInt32)) {
      return l.Fail("inputs[2]: bias type " + TfTypeName(b->type) + ", expected INT32");
    }
    TF_RETURN_IF_ERROR(l.ExpectConstant(b, "inputs[2]"));
    if (b->shape != std::vector<int32_t>{out_f}) {
      return l.Fail("inputs[2]: bias shape " + ShapeText(b->shape) + ", expected [" +
                    std::to_string(out_f) + "]");
    }
  }
  if (o.weights_format != 0) {
    return l.Fail("weights_format: " + std::to_string(o.weights_format) +
                  " (shuffled weights) is not supported");
  }
  if (o.asymmetric_quantize_inputs) {
    return l.Fail("asymmetric_quantize_inputs: hybrid (float input) FULLY_CONNECTED is not "
                  "supported");
  }
  if (o.quantized_bias_type != static_cast<int8_t>(TfType::kFloat32) &&
      o.quantized_bias_type != static_cast<int8_t>(TfType::kInt32)) {
    return l.Fail("quantized_bias_type: " + TfTypeName(o.quantized_bias_type) +
                  " is not supported (INT32 only)");
  }
  const int64_t numel = x.num_elements();
  if (numel % in_f != 0) {
    return l.Fail("inputs[0]: shape " + ShapeText(x.shape) + " does not split into rows of " +
                  std::to_string(in_f) + " features");
  }
  const int32_t batches = static_cast<int32_t>(numel / in_f);
  std::vector<int32_t> want = {batches, out_f};
  if (o.keep_num_dims) {
    if (x.shape.empty() || x.shape.back() != in_f) {
      return l.Fail("keep_num_dims: the input's last dim must be " + std::to_string(in_f) +
                    ", shape is " + ShapeText(x.shape));
    }
    want = x.shape;
    want.back() = out_f;
  }
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  auto act = FusedActivation(o.activation);
  if (!act.ok()) return l.Fail(act.error().message());
  quant::FcSpec spec;
  spec.batches = batches;
  spec.in_features = in_f;
  spec.out_features = out_f;
  spec.activation = *act;
  auto params = quant::MakeFcParams(spec, Q(x), Scales(w), Q(y));
  if (!params.ok()) return l.Fail(params.error().message());

  ir::QFcAttrs a;
  a.act_min = params->params.act_min;
  a.act_max = params->params.act_max;
  ir::TensorId xi = l.Tensor(l.InIndex(0));
  // TFLite flattens the input to [batches, in]; qfc maps [..., in] -> [..., out], so a view
  // is inserted unless the input already has the output's leading dims.
  const bool direct = o.keep_num_dims || x.shape == std::vector<int32_t>{batches, in_f};
  if (!direct) {
    ir::ReshapeAttrs r;
    r.shape = {batches, in_f};
    const std::string name = TfliteOpName(l.index(), l.op().name()) + ".flat";
    const ir::TensorId flat = l.AddActivation(name, {batches, in_f}, x);
    l.AddOp(ir::OpType::kReshape, {xi}, {flat}, r, ".flatten");
    xi = flat;
  }
  const ir::TensorId wi = l.Tensor(l.InIndex(1));
  const ir::TensorId bi = BiasInput(l, out_f);
  const ir::TensorId yi = l.Tensor(l.op().outputs[0]);
  ir::Op& op = l.AddOp(ir::OpType::kQFc, {xi, wi, bi}, {yi}, a);
  l.AddRequantInputs(op, params->multiplier, params->shift);
  return OkStatus();
}

}  // namespace tinyforge::import::tflite::internal
