// CONV_2D -> qconv2d, DEPTHWISE_CONV_2D -> qdwconv2d, FULLY_CONNECTED -> qfc,
// TRANSPOSE_CONV -> qconv2d over the stride phases + reshape / transpose / slice views.
// Weights stay as TFLite stores them (OHWI, 1HWC, [out, in]); per-channel multipliers and
// shifts come from compiler/quant (TFLM's PopulateConvolutionQuantizationParams /
// CalculateOpDataFullyConnected arithmetic) and travel as int32 constant inputs.
#include <algorithm>
#include <cstring>

#include "import/tflite/tflite_lower_internal.h"

namespace tinyforge::import::tflite::internal {
namespace {

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

// One spatial axis of TRANSPOSE_CONV in polyphase form (python/tinyforge/conv_rewrite.py
// has the same plan for PyTorch): taps per phase j = ceil(k / s); the phase conv has padding
// top / bottom and q output rows; transposed-conv output row o is row crop + o of the
// interleaved phases (row q * s + r is phase r's row q).
struct PhaseAxis {
  int64_t j = 0, top = 0, bottom = 0, q = 0, crop = 0;
};

PhaseAxis PlanPhases(int64_t k, int64_t s, int64_t pad, int64_t in, int64_t out) {
  PhaseAxis a;
  a.j = (k + s - 1) / s;
  a.top = std::max<int64_t>(0, a.j - 1 - pad / s);
  a.crop = pad + (a.top - (a.j - 1)) * s;
  a.q = std::max<int64_t>((a.crop + out + s - 1) / s, in + a.top - a.j + 1);
  a.bottom = a.q - in - a.top + a.j - 1;
  return a;
}

}  // namespace

// TFLite's TRANSPOSE_CONV adds x[iy, ix, :] . w[o, fy, fx, :] into output (iy * s - pad + fy,
// ix * s - pad + fx) (TFLM's reference kernel scatters into an int32 scratch, then adds the
// bias and requantizes per channel like CONV_2D). Output row o then sums w taps fy = j * s + r
// (r = (o + pad) % s) over input rows (o + pad) / s - j: for each phase r an ordinary
// stride-1 convolution with the taps w[:, r::s] reversed. So the lowering is one qconv2d with
// s_h * s_w * O output channels (channel (ry * s_w + rx) * O + o; same integer sums, same
// multipliers per o), then a reshape / transpose / reshape that interleaves the phases (one
// transpose kernel) and a slice when the padding crops (docs/decisions.md).
Status LowerTransposeConv(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::TransposeConvOptions, false));
  TF_RETURN_IF_ERROR(l.ExpectCounts(3, 4, 1));
  const TfOptions& o = l.op().options;
  const TfTensor* shape_t = l.In(0);
  const TfTensor* w = l.In(1);
  const TfTensor* x = l.In(2);
  const TfTensor* y = l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(x, "inputs[2]"));
  TF_RETURN_IF_ERROR(l.ExpectRank(x, "inputs[2]", 4));
  TF_RETURN_IF_ERROR(l.ExpectAct(y, "outputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectRank(y, "outputs[0]", 4));
  // output_shape: a constant, or computed from SHAPE (a dynamic batch, folded for batch 1)
  const auto known_shape = l.KnownInts(l.InIndex(0));
  if (!known_shape) {
    TF_RETURN_IF_ERROR(l.ExpectConstant(shape_t, "inputs[0]"));
    return l.Fail("inputs[0]: output_shape type " + TfTypeName(shape_t->type) + ", expected INT32");
  }
  if (const std::vector<int64_t> want = *known_shape; want != Shape64(y->shape)) {
    std::vector<int32_t> shown;
    for (int64_t v : want) shown.push_back(static_cast<int32_t>(v));
    return l.Fail("inputs[0]: output_shape " + ShapeText(shown) +
                  " differs from the output tensor's shape " + ShapeText(y->shape));
  }
  if (w->type != static_cast<int8_t>(TfType::kInt8)) {
    return l.Fail("inputs[1]: filter type " + TfTypeName(w->type) + ", expected INT8");
  }
  TF_RETURN_IF_ERROR(l.ExpectConstant(w, "inputs[1]"));
  TF_RETURN_IF_ERROR(l.ExpectRank(w, "inputs[1]", 4));
  if (!w->quant) return l.Fail("inputs[1]: filter without quantization parameters");
  if (w->quant->per_channel() && w->quant->axis != 0) {
    return l.Fail("inputs[1]: quantized_dimension " + std::to_string(w->quant->axis) +
                  ", expected 0");
  }
  for (size_t i = 0; i < w->quant->zero_point.size(); ++i) {
    if (w->quant->zero_point[i] != 0) {
      return l.Fail("inputs[1]: quantization.zero_point[" + std::to_string(i) + "]: " +
                    std::to_string(w->quant->zero_point[i]) + ", int8 filters are symmetric (0)");
    }
  }
  const int32_t out_c = w->shape[0], kh = w->shape[1], kw = w->shape[2], in_c = w->shape[3];
  if (in_c != x->shape[3] || out_c != y->shape[3] || x->shape[0] != y->shape[0]) {
    return l.Fail("inputs[1]: filter shape " + ShapeText(w->shape) + " does not map input " +
                  ShapeText(x->shape) + " to output " + ShapeText(y->shape));
  }
  const TfTensor* b = l.In(3);
  if (b) {
    if (b->type != static_cast<int8_t>(TfType::kInt32)) {
      return l.Fail("inputs[3]: bias type " + TfTypeName(b->type) + ", expected INT32");
    }
    TF_RETURN_IF_ERROR(l.ExpectConstant(b, "inputs[3]"));
    if (b->shape != std::vector<int32_t>{out_c}) {
      return l.Fail("inputs[3]: bias shape " + ShapeText(b->shape) + ", expected [" +
                    std::to_string(out_c) + "]");
    }
  }
  if (o.quantized_bias_type != static_cast<int8_t>(TfType::kFloat32) &&
      o.quantized_bias_type != static_cast<int8_t>(TfType::kInt32)) {
    return l.Fail("quantized_bias_type: " + TfTypeName(o.quantized_bias_type) +
                  " is not supported (INT32 only)");
  }
  // TFLite's padding: ComputePaddingHeightWidth on the output extent (dilation 1).
  TF_ASSIGN_OR_RETURN(Dim dh, SpatialDim(l, "h", y->shape[1], kh, o.stride_h, 1, o.padding));
  TF_ASSIGN_OR_RETURN(Dim dw, SpatialDim(l, "w", y->shape[2], kw, o.stride_w, 1, o.padding));
  const int64_t sh = o.stride_h, sw = o.stride_w, n = x->shape[0];
  const PhaseAxis ah = PlanPhases(kh, sh, dh.before, x->shape[1], y->shape[1]);
  const PhaseAxis aw = PlanPhases(kw, sw, dw.before, x->shape[2], y->shape[2]);
  const int64_t phases = sh * sw;  // each stride < 2^31: no int64 overflow
  if (phases > 4096) {
    return l.Fail("stride_h * stride_w: " + std::to_string(phases) + " phases, at most 4096");
  }
  const int64_t pc = phases * out_c;
  if (pc * ah.j * aw.j * in_c > (int64_t{1} << 30)) {
    return l.Fail("strides " + std::to_string(sh) + "x" + std::to_string(sw) +
                  " make the phase filter too large");
  }
  auto act = FusedActivation(o.activation);
  if (!act.ok()) return l.Fail(act.error().message());

  // Phase weights [ph * O + o, ty, tx, i] = w[o, (jh-1-ty)*sh + ry, (jw-1-tx)*sw + rx, i].
  const std::string base = TfliteOpName(l.index(), l.op().name());
  ir::Tensor wt;
  wt.name = l.UniqueName(base + ".phase_filter");
  wt.shape = {pc, ah.j, aw.j, in_c};
  wt.dtype = ir::DType::kInt8;
  std::vector<uint8_t> wdata(static_cast<size_t>(pc * ah.j * aw.j * in_c), 0);
  std::vector<float> scales;
  std::vector<int32_t> bias;
  const std::vector<uint8_t>& src = *w->data;
  const std::vector<int64_t> bias_in = b ? IntValues(*b) : std::vector<int64_t>(out_c, 0);
  for (int64_t ry = 0; ry < sh; ++ry) {
    for (int64_t rx = 0; rx < sw; ++rx) {
      for (int64_t oc = 0; oc < out_c; ++oc) {
        const int64_t c = (ry * sw + rx) * out_c + oc;
        scales.push_back(w->quant->scale[w->quant->per_channel() ? oc : 0]);
        bias.push_back(static_cast<int32_t>(bias_in[static_cast<size_t>(oc)]));
        for (int64_t ty = 0; ty < ah.j; ++ty) {
          const int64_t fy = (ah.j - 1 - ty) * sh + ry;
          if (fy >= kh) continue;
          for (int64_t tx = 0; tx < aw.j; ++tx) {
            const int64_t fx = (aw.j - 1 - tx) * sw + rx;
            if (fx >= kw) continue;
            std::memcpy(&wdata[static_cast<size_t>(((c * ah.j + ty) * aw.j + tx) * in_c)],
                        &src[static_cast<size_t>(((oc * kh + fy) * kw + fx) * in_c)],
                        static_cast<size_t>(in_c));
          }
        }
      }
    }
  }
  wt.data = std::move(wdata);
  ir::QuantParams wq;
  for (float sc : scales) wq.scale.push_back(static_cast<double>(sc));
  wq.zero_point.assign(scales.size(), 0);
  wq.axis = 0;
  wq.qmin = -127;
  wq.qmax = 127;
  if (!w->quant->per_channel()) {  // per-tensor stays per-tensor
    wq.scale.resize(1);
    wq.zero_point.resize(1);
    wq.axis.reset();
  }
  wt.quant = std::move(wq);
  const ir::TensorId wi = l.graph().AddTensor(std::move(wt));

  quant::ConvSpec spec;
  spec.batches = static_cast<int32_t>(n);
  spec.in_h = x->shape[1];
  spec.in_w = x->shape[2];
  spec.in_c = in_c;
  spec.out_c = static_cast<int32_t>(pc);
  spec.k_h = static_cast<int32_t>(ah.j);
  spec.k_w = static_cast<int32_t>(aw.j);
  spec.padding = {static_cast<int32_t>(ah.top), static_cast<int32_t>(aw.top),
                  static_cast<int32_t>(ah.bottom), static_cast<int32_t>(aw.bottom)};
  spec.activation = *act;
  auto params = quant::MakeConvParams(spec, Q(*x), scales, Q(*y));
  if (!params.ok()) return l.Fail(params.error().message());
  ir::QConv2dAttrs a;
  a.padding = {ah.top, aw.top, ah.bottom, aw.bottom};
  a.act_min = params->params.act_min;
  a.act_max = params->params.act_max;
  a.layout = ir::Layout::kNHWC;

  const bool interleave = phases > 1;
  const bool crop = ah.crop != 0 || aw.crop != 0 || ah.q * sh != y->shape[1] ||
                    aw.q * sw != y->shape[2];
  const ir::TensorId yi = l.Tensor(l.op().outputs[0]);
  auto stage = [&](const std::string& suffix, std::vector<int64_t> shape) {
    return l.AddActivation(base + suffix, std::move(shape), *y);
  };
  const ir::TensorId conv_out =
      interleave || crop ? stage(".phases", {n, ah.q, aw.q, pc}) : yi;
  ir::Op& conv = l.AddOp(ir::OpType::kQConv2d,
                         {l.Tensor(l.InIndex(2)), wi, l.AddInt32(base + ".phase_bias", bias)},
                         {conv_out}, a, conv_out == yi ? "" : ".phases");
  l.AddRequantInputs(conv, params->multiplier, params->shift);
  ir::TensorId cur = conv_out;
  if (interleave) {
    // [n*qh, qw, sh, sw*O] -> [n*qh, sh, qw, sw*O] = [n, qh*sh, qw*sw, O]
    const ir::TensorId rows = stage(".rows", {n * ah.q, aw.q, sh, sw * out_c});
    l.AddOp(ir::OpType::kReshape, {cur}, {rows}, ir::ReshapeAttrs{{n * ah.q, aw.q, sh, sw * out_c}},
            ".rows");
    const ir::TensorId mixed = stage(".interleaved", {n * ah.q, sh, aw.q, sw * out_c});
    l.AddOp(ir::OpType::kTranspose, {rows}, {mixed}, ir::TransposeAttrs{{0, 2, 1, 3}},
            ".interleave");
    const ir::TensorId full = crop ? stage(".full", {n, ah.q * sh, aw.q * sw, out_c}) : yi;
    l.AddOp(ir::OpType::kReshape, {mixed}, {full},
            ir::ReshapeAttrs{{n, ah.q * sh, aw.q * sw, out_c}}, crop ? ".full" : "");
    cur = full;
  }
  if (crop) {
    ir::SliceAttrs s;
    s.begin = {0, ah.crop, aw.crop, 0};
    s.end = {n, ah.crop + y->shape[1], aw.crop + y->shape[2], out_c};
    s.stride = {1, 1, 1, 1};
    l.AddOp(ir::OpType::kSlice, {cur}, {yi}, s);  // (the op writing the output: opKK_TYPE)
  }
  return OkStatus();
}

Status LowerConv2d(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::Conv2DOptions, false));
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
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::DepthwiseConv2DOptions, false));
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
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::FullyConnectedOptions, true));
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
