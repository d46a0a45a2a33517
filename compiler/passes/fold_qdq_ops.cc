// fold-qdq, one float op at a time: which int8 op it becomes and what cannot be lowered.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "exec/ref_ops.h"
#include "ir/shape_inference.h"
#include "ir/unary_fn.h"
#include "passes/fold_qdq_internal.h"
#include "passes/util.h"
#include "quant/kernel_params.h"

namespace tinyforge::passes::fold {
namespace {

using ir::OpType;
using ir::TensorId;

void Emit(Context& c, OpType type, std::vector<TensorId> in, TensorId out, ir::Attrs attrs,
          std::vector<ir::Op>& after) {
  ir::Op op = ir::MakeOp(type, c.op().name, std::move(in), {out}, std::move(attrs));
  op.source = c.op().source;
  c.out.push_back(std::move(op));
  for (ir::Op& a : after) c.out.push_back(std::move(a));
}

ir::QuantParams Fixed(double scale, int64_t zp) { return ir::PerTensorQuant(scale, zp, -128, 127); }

Expected<TensorId> Activation(Context& c, TensorId t) {
  TF_ASSIGN_OR_RETURN(TensorId s, Source(c, t, "input"));
  const ir::Tensor& desc = c.g.tensor(s);
  if (desc.dtype != ir::DType::kInt8 || !desc.quant || desc.quant->per_channel()) {
    return c.Fail("input '" + desc.name + "' must be int8 with per-tensor quantization");
  }
  return s;
}

// conv2d/linear bias: the int32 constant behind a dequantize; a float constant bias is
// quantized here as PT2E would (scale in_scale * w_scale[o] as a float32 product, round half
// to even); no bias gives zeros.
Expected<TensorId> Bias(Context& c, TensorId x, TensorId w, int64_t out_channels) {
  const ir::Op& op = c.op();
  if (op.inputs.size() < 3) {
    std::vector<int32_t> zeros(static_cast<size_t>(out_channels), 0);
    return AddInt32Constant(c.g, c.tensor_names, op.name + ".bias", zeros);
  }
  const ir::Tensor& b = c.g.tensor(op.inputs[2]);
  if (b.dtype == ir::DType::kFloat32 && b.is_constant()) {
    const auto values = ConstantValues<float>(b);
    const auto& ws = c.g.tensor(w).quant->scale;
    const float in_scale = static_cast<float>(c.g.tensor(x).quant->scale[0]);
    std::vector<int32_t> q(values.size());
    ir::QuantParams bq{{}, {}, 0, INT32_MIN, INT32_MAX};
    for (size_t o = 0; o < values.size(); ++o) {
      const float s = in_scale * static_cast<float>(ws.size() == 1 ? ws[0] : ws[o]);
      const double v = std::nearbyint(static_cast<double>(values[o] / s));
      q[o] = static_cast<int32_t>(std::clamp(v, double{INT32_MIN}, double{INT32_MAX}));
      bq.scale.push_back(s);
      bq.zero_point.push_back(0);
    }
    return AddConstant(c.g, c.tensor_names, b.name, ir::DType::kInt32, b.shape,
                       Bytes<int32_t>(q), bq);
  }
  TF_ASSIGN_OR_RETURN(TensorId s, ConstantSource(c, op.inputs[2], "bias"));
  if (c.g.tensor(s).dtype != ir::DType::kInt32) return c.Fail("bias must be int32");
  return s;
}

Expected<TensorId> Weights(Context& c, TensorId t) {
  TF_ASSIGN_OR_RETURN(TensorId w, ConstantSource(c, t, "weight"));
  const ir::Tensor& desc = c.g.tensor(w);
  bool symmetric = desc.dtype == ir::DType::kInt8;
  for (int64_t zp : desc.quant ? desc.quant->zero_point : std::vector<int64_t>{1}) {
    symmetric = symmetric && zp == 0;
  }
  if (!symmetric || (desc.quant->per_channel() && *desc.quant->axis != 0)) {
    return c.Fail("weight '" + desc.name + "' must be int8, symmetric (zero point 0), per " +
                  "tensor or per output channel (axis 0)");
  }
  return w;
}

Status ConvOrLinear(Context& c) {
  const ir::Op& op = c.op();
  TF_ASSIGN_OR_RETURN(TensorId x, Activation(c, op.inputs[0]));
  TF_ASSIGN_OR_RETURN(TensorId w, Weights(c, op.inputs[1]));
  const int64_t out_c = c.g.tensor(w).shape[0];
  TF_ASSIGN_OR_RETURN(TensorId b, Bias(c, x, w, out_c));
  TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
  const auto [lo, hi] = FullRange(c.g.tensor(y));
  std::vector<ir::Op> none;
  if (op.type == OpType::kLinear) {
    Emit(c, OpType::kQFc, {x, w, b}, y, ir::QFcAttrs{lo, hi, false}, none);
    return OkStatus();
  }
  const auto& a = op.attrs_as<ir::Conv2dAttrs>();
  const int64_t in_c = c.g.tensor(x).shape[1];
  if (a.groups > 1 && a.groups == in_c && c.g.tensor(w).shape[1] == 1) {
    ir::QDwConv2dAttrs d{a.stride, a.padding, a.dilation, out_c / in_c, lo, hi,
                         ir::Layout::kNCHW, false};
    Emit(c, OpType::kQDwConv2d, {x, w, b}, y, d, none);
  } else {
    ir::QConv2dAttrs q{a.stride, a.padding, a.dilation, a.groups, lo, hi, ir::Layout::kNCHW,
                       false};
    Emit(c, OpType::kQConv2d, {x, w, b}, y, q, none);
  }
  return OkStatus();
}

// PyTorch's ceil_mode adds output rows/columns whose windows run past the padded input;
// the kernels take any bottom/right padding, so it becomes padding.
ir::Pad4 CeilPadding(const ir::Pad4& pad, const ir::Vec2& kernel, const ir::Vec2& stride,
                     const ir::Shape& x, const ir::Shape& y) {
  ir::Pad4 p = pad;
  for (int i = 0; i < 2; ++i) {
    const int64_t need = (y[2 + static_cast<size_t>(i)] - 1) * stride[i] + kernel[i] -
                         x[2 + static_cast<size_t>(i)] - pad[i];
    p[2 + i] = std::max(pad[2 + i], need);
  }
  return p;
}

Status Pool(Context& c) {
  const ir::Op& op = c.op();
  TF_ASSIGN_OR_RETURN(TensorId x, Activation(c, op.inputs[0]));
  const ir::Shape xs = c.g.tensor(x).shape;
  const ir::Shape ys = c.g.tensor(op.outputs[0]).shape;
  if (xs.size() != 4) return c.Fail("pooling needs a [N,C,H,W] input");
  ir::QPool2dAttrs q;
  OpType type = OpType::kQMaxPool2d;
  if (op.type == OpType::kMaxPool2d) {
    const auto& a = op.attrs_as<ir::MaxPool2dAttrs>();
    if (a.dilation != ir::Vec2{1, 1}) {
      return c.Fail("max_pool2d with dilation " + std::to_string(a.dilation[0]) + "x" +
                    std::to_string(a.dilation[1]) + ": TFLite's MAX_POOL_2D has no dilation");
    }
    q.kernel = a.kernel, q.stride = a.stride;
    q.padding = CeilPadding(a.padding, a.kernel, a.stride, xs, ys);
  } else {
    type = OpType::kQAvgPool2d;
    const auto& a = op.attrs_as<ir::AvgPool2dAttrs>();
    const bool padded =
        std::any_of(a.padding.begin(), a.padding.end(), [](int64_t p) { return p != 0; });
    if (a.count_include_pad && padded) {
      return c.Fail("avg_pool2d with padding and count_include_pad=True divides border " +
                    std::string("windows by the full kernel size; TFLite's AVERAGE_POOL_2D ") +
                    "counts only taps inside the input (use count_include_pad=False)");
    }
    q.kernel = a.kernel, q.stride = a.stride;
    q.padding = CeilPadding(a.padding, a.kernel, a.stride, xs, ys);
    const bool full = std::all_of(q.padding.begin(), q.padding.end(), [](int64_t p) { return !p; });
    if (a.divisor_override != 0 && !(full && a.divisor_override == a.kernel[0] * a.kernel[1])) {
      return c.Fail("avg_pool2d with divisor_override=" + std::to_string(a.divisor_override) +
                    ": TFLite's AVERAGE_POOL_2D divides by the taps inside the input");
    }
  }
  TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
  std::tie(q.act_min, q.act_max) = FullRange(c.g.tensor(y));
  std::vector<ir::Op> after;
  const TensorId out = Through(c, y, *c.g.tensor(x).quant, after);
  Emit(c, type, {x}, out, q, after);
  return OkStatus();
}

// mean / sum over any dims (the layout pass makes non-adjacent ones adjacent with a
// transpose): one int8 op that requantizes to the output's parameters.
Status Mean(Context& c, OpType type) {
  const ir::Op& op = c.op();
  TF_ASSIGN_OR_RETURN(TensorId x, Activation(c, op.inputs[0]));
  TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
  std::vector<ir::Op> none;
  Emit(c, type, {x}, y, op.attrs, none);
  return OkStatus();
}

// Constant pad: qpad with the pad value quantized like the input (the output shares it).
Status Pad(Context& c) {
  const ir::Op& op = c.op();
  TF_ASSIGN_OR_RETURN(TensorId x, Activation(c, op.inputs[0]));
  TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
  const ir::QuantParams& q = *c.g.tensor(x).quant;
  const auto& a = op.attrs_as<ir::PadAttrs>();
  const double v = std::nearbyint(a.value / q.scale[0]) + static_cast<double>(q.zero_point[0]);
  ir::QPadAttrs qa{a.padding, static_cast<int64_t>(std::clamp(v, -128.0, 127.0))};
  std::vector<ir::Op> after;
  const TensorId out = Through(c, y, q, after);
  Emit(c, OpType::kQPad, {x}, out, qa, after);
  return OkStatus();
}

// Ops whose output shares the input's parameters (reshape) or has TFLite's fixed ones.
Status Unary(Context& c, OpType type, std::optional<ir::QuantParams> fixed) {
  const ir::Op& op = c.op();
  TF_ASSIGN_OR_RETURN(TensorId x, Activation(c, op.inputs[0]));
  TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
  std::vector<ir::Op> after;
  const TensorId out = Through(c, y, fixed ? *fixed : *c.g.tensor(x).quant, after);
  Emit(c, type, {x}, out, op.attrs, after);
  return OkStatus();
}

// A function of one input between dequantize and quantize (ir/unary_fn.h): a 256-entry
// table, qlut (docs/numerics.md "Table lookups"). sigmoid / tanh keep TFLite's fixed output
// parameters (a requantize follows when the graph labels the output otherwise) and their
// table is TFLite's integer algorithm run on every input; the others write the quantize's
// parameters and their table is quantize(f(dequantize(q))) with PyTorch's arithmetic.
Status Lut(Context& c) {
  const ir::Op& op = c.op();
  TF_ASSIGN_OR_RETURN(TensorId x, Activation(c, op.inputs[0]));
  TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
  std::vector<ir::Op> after;
  TensorId out = y;
  if (op.type == OpType::kSigmoid) out = Through(c, y, Fixed(1.0 / 256.0, -128), after);
  if (op.type == OpType::kTanh) out = Through(c, y, Fixed(1.0 / 128.0, 0), after);
  const ir::QuantParams xq = *c.g.tensor(x).quant;
  const ir::QuantParams yq = *c.g.tensor(out).quant;
  const quant::TensorQuant xt{static_cast<float>(xq.scale[0]), static_cast<int32_t>(xq.zero_point[0])};
  const quant::TensorQuant yt{static_cast<float>(yq.scale[0]), static_cast<int32_t>(yq.zero_point[0])};
  quant::LutTable table{};
  if (op.type == OpType::kSigmoid || op.type == OpType::kTanh) {
    auto t = op.type == OpType::kSigmoid ? quant::LogisticTable(xt, yt) : quant::TanhTable(xt, yt);
    if (!t.ok()) return c.Fail(t.error().message());
    table = *t;
  } else {
    for (int i = 0; i < TF_LUT_ENTRIES; ++i) {
      const float v = exec::DequantizeValue(static_cast<int8_t>(i), xq.scale[0], xq.zero_point[0]);
      const float f = ir::EvalUnaryFn(op.type, op.attrs, v);
      table[static_cast<size_t>(i)] = static_cast<int8_t>(
          exec::QuantizeValue(f, yq.scale[0], yq.zero_point[0], yq.qmin, yq.qmax));
    }
  }
  const TensorId t = AddConstant(c.g, c.tensor_names, op.name + ".table", ir::DType::kInt8,
                                 {TF_LUT_ENTRIES}, Bytes<int8_t>(std::span<const int8_t>(table)), yq);
  Emit(c, OpType::kQLut, {x, t}, out, ir::NoAttrs{}, after);
  return OkStatus();
}

// layer_norm / rms_norm between dequantize and quantize: qlayernorm, with the float weight
// and bias folded into int32 scale and bias constants (kernels/layernorm, docs/numerics.md
// "Layer norm").
Status LayerNorm(Context& c) {
  const ir::Op& op = c.op();
  TF_ASSIGN_OR_RETURN(TensorId x, Activation(c, op.inputs[0]));
  TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
  std::vector<float> affine[2];
  for (size_t i = 1; i < op.inputs.size(); ++i) {
    const ir::Tensor& t = c.g.tensor(op.inputs[i]);
    if (t.dtype != ir::DType::kFloat32 || !t.is_constant()) {
      return c.Fail(std::string(i == 1 ? "weight" : "bias") + " '" + t.name +
                    "' must be a float32 constant");
    }
    affine[i - 1] = ConstantValues<float>(t);
  }
  const ir::Tensor& xt = c.g.tensor(x);
  const ir::QuantParams& yq = *c.g.tensor(y).quant;
  const quant::TensorQuant yt{static_cast<float>(yq.scale[0]), static_cast<int32_t>(yq.zero_point[0])};
  const auto& a = op.attrs_as<ir::LayerNormAttrs>();
  auto k = quant::MakeLayerNormConstants(affine[0], affine[1], xt.shape.back(), yt);
  if (!k.ok()) return c.Fail(k.error().message());
  const auto& xq = *xt.quant;
  std::vector<int32_t> dims(xt.shape.begin(), xt.shape.end());
  auto p = quant::MakeLayerNormParams(
      dims, a.rms, a.eps,
      quant::TensorQuant{static_cast<float>(xq.scale[0]), static_cast<int32_t>(xq.zero_point[0])},
      k->scale_exp, static_cast<int64_t>(k->scale.size()));
  if (!p.ok()) return c.Fail(p.error().message());
  const TensorId s = AddInt32Constant(c.g, c.tensor_names, op.name + ".scale", k->scale);
  const TensorId b = AddInt32Constant(c.g, c.tensor_names, op.name + ".bias", k->bias);
  std::vector<ir::Op> none;
  Emit(c, OpType::kQLayerNorm, {x, s, b}, y, ir::QLayerNormAttrs{a.eps, a.rms, k->scale_exp},
       none);
  return OkStatus();
}

Status Clamp(Context& c) {
  const ir::Op& op = c.op();
  TF_ASSIGN_OR_RETURN(TensorId x, Activation(c, op.inputs[0]));
  TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
  const ir::Tensor& yt = c.g.tensor(y);
  auto [lo, hi] = FullRange(yt);
  if (op.type == OpType::kRelu) {
    lo = std::max(lo, QuantizeBound(0.0, yt));
  } else {
    const auto& a = op.attrs_as<ir::HardtanhAttrs>();
    lo = std::clamp(QuantizeBound(a.min, yt), lo, hi);
    hi = std::clamp(QuantizeBound(a.max, yt), lo, hi);
  }
  std::vector<ir::Op> none;
  Emit(c, OpType::kRequantize, {x}, y, ir::ClampAttrs{lo, hi}, none);
  return OkStatus();
}

// add / sub / mul / matmul: both inputs (activations or int8 constants) and the output keep
// their own parameters; the kernels requantize (TFLite's ADD / SUB / MUL / BATCH_MATMUL).
// matmul becomes qbmm; a transposed operand is absorbed later (remove-noops).
Status Binary(Context& c, OpType type) {
  const ir::Op& op = c.op();
  TF_ASSIGN_OR_RETURN(TensorId a, Activation(c, op.inputs[0]));
  TF_ASSIGN_OR_RETURN(TensorId b, Activation(c, op.inputs[1]));
  TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
  const auto [lo, hi] = FullRange(c.g.tensor(y));
  std::vector<ir::Op> none;
  const ir::Attrs attrs = type == OpType::kQBmm ? ir::Attrs{ir::QBmmAttrs{false, false, lo, hi}}
                                                : ir::Attrs{ir::ClampAttrs{lo, hi}};
  Emit(c, type, {a, b}, y, attrs, none);
  return OkStatus();
}

// maximum / minimum compare raw int8 values (TFLite's MAXIMUM / MINIMUM): input 2 and the
// output take input 1's parameters, with a requantize where they differ.
Status MinMax(Context& c, OpType type) {
  const ir::Op& op = c.op();
  TF_ASSIGN_OR_RETURN(TensorId a, Activation(c, op.inputs[0]));
  TF_ASSIGN_OR_RETURN(TensorId b, Activation(c, op.inputs[1]));
  TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
  const ir::QuantParams aq = *c.g.tensor(a).quant;
  const ir::Tensor& bt = c.g.tensor(b);
  if (bt.quant->scale != aq.scale || bt.quant->zero_point != aq.zero_point) {
    ir::Tensor r = bt;
    r.quant = aq;
    r.data.reset();
    r.name = c.tensor_names.Unique(bt.name + ".requantized");
    const TensorId rid = c.g.AddTensor(std::move(r));
    ir::Op rq = ir::MakeOp(OpType::kRequantize, c.UniqueOpName(op.name + ".requantize"), {b},
                           {rid}, ir::ClampAttrs{-128, 127});
    rq.source = op.source;
    c.out.push_back(std::move(rq));
    b = rid;
  }
  std::vector<ir::Op> after;
  const TensorId out = Through(c, y, aq, after);
  Emit(c, type, {a, b}, out, ir::NoAttrs{}, after);
  return OkStatus();
}

// qconcat copies bytes: inputs quantized differently from the output get a requantize
// first (what the TFLite converter does with a QUANTIZE op).
Status Cat(Context& c) {
  const ir::Op& op = c.op();
  TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
  const ir::QuantParams yq = *c.g.tensor(y).quant;
  std::vector<TensorId> ins;
  std::vector<std::pair<TensorId, TensorId>> done;  // source -> its requantized copy
  for (TensorId t : op.inputs) {
    TF_ASSIGN_OR_RETURN(TensorId x, Activation(c, t));
    const ir::Tensor& xt = c.g.tensor(x);
    auto seen = std::find_if(done.begin(), done.end(), [&](auto& d) { return d.first == x; });
    if (seen != done.end()) {
      ins.push_back(seen->second);
      continue;
    }
    if (xt.quant->scale != yq.scale || xt.quant->zero_point != yq.zero_point) {
      ir::Tensor r = xt;
      r.quant = yq;
      r.name = c.tensor_names.Unique(xt.name + ".requantized");
      const TensorId rid = c.g.AddTensor(std::move(r));
      ir::Op rq = ir::MakeOp(OpType::kRequantize, c.UniqueOpName(op.name + ".requantize"), {x},
                             {rid}, ir::ClampAttrs{});
      rq.source = op.source;
      c.out.push_back(std::move(rq));
      done.emplace_back(x, rid);
      x = rid;
    }
    ins.push_back(x);
  }
  std::vector<ir::Op> none;
  Emit(c, OpType::kQConcat, ins, y, op.attrs, none);
  return OkStatus();
}

// A quantize nothing absorbed: the graph's float input edge, or dequantize -> quantize
// (a change of quantization parameters: requantize).
Status LooseQuantize(Context& c) {
  const ir::Op& op = c.op();
  const TensorId in = op.inputs[0];
  const bool edge = std::find(c.g.inputs.begin(), c.g.inputs.end(), in) != c.g.inputs.end();
  const int p = c.producer[static_cast<size_t>(in)];
  const bool after_float_op =
      p != ir::kNoProducer && ir::IsFloatFallbackOp(c.g.ops[static_cast<size_t>(p)].type);
  if (edge || after_float_op) {
    c.out.push_back(op);
    return OkStatus();
  }
  TF_ASSIGN_OR_RETURN(TensorId x, Activation(c, in));
  const auto [lo, hi] = FullRange(c.g.tensor(op.outputs[0]));
  std::vector<ir::Op> none;
  Emit(c, OpType::kRequantize, {x}, op.outputs[0], ir::ClampAttrs{lo, hi}, none);
  return OkStatus();
}

}  // namespace

Status FoldOne(Context& c) {
  const ir::Op& op = c.op();
  if (ir::IsFloatFallbackOp(op.type)) {  // stays float32 (kernels/f32), as it is
    c.out.push_back(op);
    return OkStatus();
  }
  if (ir::IsUnaryFn(op.type)) return Lut(c);
  switch (op.type) {
    case OpType::kConv2d:
    case OpType::kLinear:
      return ConvOrLinear(c);
    case OpType::kMaxPool2d:
    case OpType::kAvgPool2d:
      return Pool(c);
    case OpType::kMean:
      return Mean(c, OpType::kQMean);
    case OpType::kSum:
      return Mean(c, OpType::kQSum);
    case OpType::kAmax:
      return Unary(c, OpType::kQReduceMax, std::nullopt);
    case OpType::kPad:
      return Pad(c);
    case OpType::kReshape:
      return Unary(c, OpType::kReshape, std::nullopt);
    case OpType::kTranspose:
      return Unary(c, OpType::kTranspose, std::nullopt);
    case OpType::kSlice:
      return Unary(c, OpType::kSlice, std::nullopt);
    case OpType::kResize:  // input parameters; a requantize follows if the output differs
      return Unary(c, OpType::kResize, std::nullopt);
    case OpType::kSoftmax:
      return Unary(c, OpType::kQSoftmax, Fixed(1.0 / 256.0, -128));
    case OpType::kLayerNorm:
      return LayerNorm(c);
    case OpType::kRelu:
    case OpType::kHardtanh:
      return Clamp(c);
    case OpType::kAdd:
      return Binary(c, OpType::kQAdd);
    case OpType::kSub:
      return Binary(c, OpType::kQSub);
    case OpType::kMul:
      return Binary(c, OpType::kQMul);
    case OpType::kGather: {  // int8 data (an activation or a constant), raw int32 indices
      TF_ASSIGN_OR_RETURN(TensorId x, Activation(c, op.inputs[0]));
      TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
      std::vector<ir::Op> after;
      const TensorId out = Through(c, y, *c.g.tensor(x).quant, after);
      Emit(c, OpType::kGather, {x, op.inputs[1]}, out, op.attrs, after);
      return OkStatus();
    }
    case OpType::kArgMax: {  // int8 in, the int32 indices out (no quantize after)
      TF_ASSIGN_OR_RETURN(TensorId x, Activation(c, op.inputs[0]));
      std::vector<ir::Op> none;
      Emit(c, OpType::kArgMax, {x}, op.outputs[0], op.attrs, none);
      return OkStatus();
    }
    case OpType::kPrelu: {  // TFLite's PRELU: no fused activation, output full range
      TF_ASSIGN_OR_RETURN(TensorId a, Activation(c, op.inputs[0]));
      TF_ASSIGN_OR_RETURN(TensorId b, Activation(c, op.inputs[1]));
      TF_ASSIGN_OR_RETURN(TensorId y, Output(c));
      // The slopes [C] of dim 1 as qprelu's broadcast operand [1, C, 1, ...] (same bytes).
      const ir::Tensor& slopes = c.g.tensor(b);
      if (!slopes.is_constant()) return c.Fail("prelu: the slopes must be a constant");
      ir::Tensor s = slopes;
      s.shape.assign(c.g.tensor(a).shape.size(), 1);
      s.shape[1] = slopes.shape[0];
      s.name = c.tensor_names.Unique(slopes.name + ".per_channel");
      b = c.g.AddTensor(std::move(s));
      std::vector<ir::Op> none;
      Emit(c, OpType::kQPrelu, {a, b}, y, ir::NoAttrs{}, none);
      return OkStatus();
    }
    case OpType::kMatmul:
      return Binary(c, OpType::kQBmm);
    case OpType::kMaximum:
      return MinMax(c, OpType::kQMaximum);
    case OpType::kMinimum:
      return MinMax(c, OpType::kQMinimum);
    case OpType::kCat:
      return Cat(c);
    case OpType::kQuantize:
      return LooseQuantize(c);
    case OpType::kDequantize: {
      // Kept where it makes a graph output float or feeds a float fallback op; the others
      // die with their readers.
      const TensorId out = op.outputs[0];
      bool keep = std::find(c.g.outputs.begin(), c.g.outputs.end(), out) != c.g.outputs.end();
      for (int r : c.consumers[static_cast<size_t>(out)]) {
        keep = keep || ir::IsFloatFallbackOp(c.g.ops[static_cast<size_t>(r)].type);
      }
      if (keep && c.g.tensor(op.inputs[0]).is_constant()) {
        return c.Fail("a float op reads the constant '" + c.g.tensor(op.inputs[0]).name +
                      "' through a dequantize: not supported (leave that constant float)");
      }
      if (keep) c.out.push_back(op);
      return OkStatus();
    }
    default:
      return c.Fail(std::string(ir::OpTypeName(op.type)) + " cannot be folded by fold-qdq")
          .WithKind(ErrorKind::kUnsupported);
  }
}

}  // namespace tinyforge::passes::fold
