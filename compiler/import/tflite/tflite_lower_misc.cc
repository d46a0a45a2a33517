// Pools, MEAN/SUM/REDUCE_MAX, ADD/SUB/MUL, MAXIMUM/MINIMUM, SQUARED_DIFFERENCE, SOFTMAX, the table lookups
// (LOGISTIC, TANH, HARD_SWISH, LEAKY_RELU, ELU) and standalone RELU/RELU6: each checked as
// TFLite Micro's Prepare() would, lowered to its int8 op with the integer parameters
// compiler/quant computes (TFLM arithmetic) as int32 constant inputs.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "import/tflite/tflite_lower_internal.h"
#include "ir/shape_inference.h"
#include "quant/op_params.h"

namespace tinyforge::import::tflite::internal {
namespace {

std::vector<int32_t> Dims32(const TfTensor& t) { return t.shape; }

// One-input, one-output elementwise op on int8 activations of equal shape.
Status CheckUnary(const Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectCounts(1, 1, 1));
  TF_RETURN_IF_ERROR(l.ExpectAct(l.In(0), "inputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectAct(l.Out(0), "outputs[0]"));
  return l.ExpectOutputShape(l.In(0)->shape);
}

int32_t Size32(const TfTensor& t) { return static_cast<int32_t>(t.num_elements()); }

}  // namespace

Status LowerPool(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::Pool2DOptions, false));
  TF_RETURN_IF_ERROR(l.ExpectCounts(1, 1, 1));
  const TfTensor& x = *l.In(0);
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectRank(&x, "inputs[0]", 4));
  TF_RETURN_IF_ERROR(l.ExpectAct(&y, "outputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectSameQuant(&y, "outputs[0]", &x, "inputs[0]",
                                       "TFLite's int8 pooling does not rescale"));
  const TfOptions& o = l.op().options;
  if (o.filter_h < 1 || o.filter_w < 1) {
    return l.Fail("filter_height/filter_width: " + std::to_string(o.filter_h) + "x" +
                  std::to_string(o.filter_w) + ", must be >= 1");
  }
  TF_ASSIGN_OR_RETURN(Dim h, SpatialDim(l, "h", x.shape[1], o.filter_h, o.stride_h, 1, o.padding));
  TF_ASSIGN_OR_RETURN(Dim w, SpatialDim(l, "w", x.shape[2], o.filter_w, o.stride_w, 1, o.padding));
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(
      {x.shape[0], static_cast<int32_t>(h.out), static_cast<int32_t>(w.out), x.shape[3]}));
  auto act = FusedActivation(o.activation);
  if (!act.ok()) return l.Fail(act.error().message());
  quant::PoolSpec spec;
  spec.batches = x.shape[0];
  spec.in_h = x.shape[1];
  spec.in_w = x.shape[2];
  spec.channels = x.shape[3];
  spec.filter_h = o.filter_h;
  spec.filter_w = o.filter_w;
  spec.stride_h = o.stride_h;
  spec.stride_w = o.stride_w;
  spec.padding = {static_cast<int32_t>(h.before), static_cast<int32_t>(w.before),
                  static_cast<int32_t>(h.after), static_cast<int32_t>(w.after)};
  spec.activation = *act;
  auto params = quant::MakePoolParams(spec, Q(x), Q(y));
  if (!params.ok()) return l.Fail(params.error().message());
  ir::QPool2dAttrs a;
  a.kernel = {o.filter_h, o.filter_w};
  a.stride = {o.stride_h, o.stride_w};
  a.padding = {h.before, w.before, h.after, w.after};
  a.act_min = params->act_min;
  a.act_max = params->act_max;
  a.layout = ir::Layout::kNHWC;
  const ir::OpType type =
      l.op().code == op::kMaxPool2d ? ir::OpType::kQMaxPool2d : ir::OpType::kQAvgPool2d;
  l.AddOp(type, {l.Tensor(l.InIndex(0))}, {l.Tensor(l.op().outputs[0])}, a);
  return OkStatus();
}

Status LowerMean(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::ReducerOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(2, 2, 1));
  const TfTensor& x = *l.In(0);
  const TfTensor& axes_t = *l.In(1);
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectAct(&y, "outputs[0]"));
  if (axes_t.type != static_cast<int8_t>(TfType::kInt32) &&
      axes_t.type != static_cast<int8_t>(TfType::kInt64)) {
    return l.Fail("inputs[1]: axis type " + TfTypeName(axes_t.type) + ", expected INT32");
  }
  TF_RETURN_IF_ERROR(l.ExpectConstant(&axes_t, "inputs[1]"));
  if (axes_t.shape.size() > 1) {
    return l.Fail("inputs[1]: axis shape " + ShapeText(axes_t.shape) + ", expected a vector");
  }
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes;
  for (int64_t a : IntValues(axes_t)) {
    if (a < -rank || a >= rank) {
      return l.Fail("inputs[1]: axis " + std::to_string(a) + " is out of range for rank " +
                    std::to_string(rank));
    }
    a = a < 0 ? a + rank : a;
    if (std::find(axes.begin(), axes.end(), a) != axes.end()) {
      return l.Fail("inputs[1]: axis " + std::to_string(a) + " is listed twice");
    }
    axes.push_back(a);
  }
  if (axes.empty()) return l.Fail("inputs[1]: no axis to reduce");
  std::sort(axes.begin(), axes.end());
  const bool keep = l.op().options.keep_dims;
  std::vector<int32_t> want;
  for (int64_t d = 0; d < rank; ++d) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), d);
    if (!reduced) want.push_back(x.shape[static_cast<size_t>(d)]);
    if (reduced && keep) want.push_back(1);
  }
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  ir::MeanAttrs a;
  a.dims = axes;
  a.keepdim = keep;
  const int32_t code = l.op().code;
  if (code == op::kReduceMax) {
    // TFLM's Prepare for REDUCE_MAX: the output quantized like the input.
    TF_RETURN_IF_ERROR(l.ExpectSameQuant(&y, "outputs[0]", &x, "inputs[0]",
                                         "TFLite's int8 REDUCE_MAX does not rescale"));
    l.AddOp(ir::OpType::kQReduceMax, {l.Tensor(l.InIndex(0))}, {l.Tensor(l.op().outputs[0])},
            a);
    return OkStatus();
  }
  if (code == op::kReduceMin) {
    // min(x) = ~max(~x): bitwise NOT (-1 - q) reverses the order of int8 and is its own
    // inverse, so the minimum is exact through two table lookups and the REDUCE_MAX kernel.
    TF_RETURN_IF_ERROR(l.ExpectSameQuant(&y, "outputs[0]", &x, "inputs[0]",
                                         "TFLite's int8 REDUCE_MIN does not rescale"));
    quant::LutTable flip;
    for (size_t i = 0; i < flip.size(); ++i) {
      flip[i] = static_cast<int8_t>(~static_cast<uint8_t>(i));
    }
    const ir::TensorId nx = l.AddActivation(x.name + ".not", Shape64(x.shape), x);
    const ir::TensorId ny = l.AddActivation(y.name + ".not", Shape64(want), y);
    const ir::TensorId in_table = l.AddInt8Table(x.name + ".not.table", flip, x);
    l.AddOp(ir::OpType::kQLut, {l.Tensor(l.InIndex(0)), in_table}, {nx}, ir::NoAttrs{},
            ".not_in");
    l.AddOp(ir::OpType::kQReduceMax, {nx}, {ny}, a, ".max");
    l.AddOp(ir::OpType::kQLut, {ny, l.AddInt8Table(y.name + ".not.table", flip, y)},
            {l.Tensor(l.op().outputs[0])}, ir::NoAttrs{});
    return OkStatus();
  }
  // The parameters depend only on the count of reduced elements: computed on the
  // [kept, reduced] view (the layout pass makes non-adjacent axes adjacent).
  int64_t kept = 1, count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    (std::binary_search(axes.begin(), axes.end(), d) ? count : kept) *=
        x.shape[static_cast<size_t>(d)];
  }
  if (kept * count > INT32_MAX) return l.Fail("inputs[0]: tensor too large");
  const std::vector<int32_t> view = {static_cast<int32_t>(kept), static_cast<int32_t>(count)};
  const std::vector<int32_t> view_axes = {1};
  const bool sum = code == op::kSum;
  auto params = quant::MakeMeanParams(view, view_axes, Q(x), Q(y), sum);
  if (!params.ok()) return l.Fail(params.error().message());
  ir::Op& op = l.AddOp(sum ? ir::OpType::kQSum : ir::OpType::kQMean, {l.Tensor(l.InIndex(0))},
                       {l.Tensor(l.op().outputs[0])}, a);
  l.AddRequantInputs(op, {params->multiplier}, {params->shift});
  return OkStatus();
}

namespace {

// Two int8 activations (or constants) broadcasting to the output's shape: the TFLite Micro
// checks every binary elementwise op shares.
Status CheckBinary(const Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectCounts(2, 2, 1));
  const TfTensor& a = *l.In(0);
  const TfTensor& b = *l.In(1);
  TF_RETURN_IF_ERROR(l.ExpectAct(&a, "inputs[0]", true));
  TF_RETURN_IF_ERROR(l.ExpectAct(&b, "inputs[1]", true));
  TF_RETURN_IF_ERROR(l.ExpectAct(l.Out(0), "outputs[0]"));
  auto shape = quant::MakeBroadcastShape(Dims32(a), Dims32(b));
  if (!shape.ok()) return l.Fail(shape.error().message());
  // The broadcast shape, right-aligned to the larger rank.
  const size_t rank = std::max(a.shape.size(), b.shape.size());
  std::vector<int32_t> want(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int32_t da = i + a.shape.size() >= rank ? a.shape[i + a.shape.size() - rank] : 1;
    const int32_t db = i + b.shape.size() >= rank ? b.shape[i + b.shape.size() - rank] : 1;
    want[i] = std::max(da, db);
  }
  return l.ExpectOutputShape(want);
}

}  // namespace

Status LowerAddMul(Lowering& l) {
  const int32_t code = l.op().code;
  if (code == op::kAdd && l.In(0) && l.In(0)->type == static_cast<int8_t>(TfType::kInt32)) {
    return LowerIndexWrap(l);  // i + n of an index wrap
  }
  const bool mul = code == op::kMul;
  TF_RETURN_IF_ERROR(l.ExpectOptions(
      code == op::kAdd ? Options::AddOptions : (mul ? Options::MulOptions : Options::SubOptions), true));
  TF_RETURN_IF_ERROR(CheckBinary(l));
  const TfTensor& a = *l.In(0);
  const TfTensor& b = *l.In(1);
  const TfTensor& y = *l.Out(0);
  auto act = FusedActivation(l.op().options.activation);
  if (!act.ok()) return l.Fail(act.error().message());
  ir::ClampAttrs attrs;
  std::vector<int32_t> mult, shift;
  if (!mul) {
    // SUB's Prepare (CalculateOpDataSub) computes exactly ADD's parameters.
    auto p = quant::MakeAddParams(Dims32(a), Dims32(b), Q(a), Q(b), Q(y), *act);
    if (!p.ok()) return l.Fail(p.error().message());
    attrs.act_min = p->act_min;
    attrs.act_max = p->act_max;
    mult = {p->input1_multiplier, p->input2_multiplier, p->output_multiplier};
    shift = {p->input1_shift, p->input2_shift, p->output_shift};
  } else {
    auto p = quant::MakeMulParams(Dims32(a), Dims32(b), Q(a), Q(b), Q(y), *act);
    if (!p.ok()) return l.Fail(p.error().message());
    attrs.act_min = p->act_min;
    attrs.act_max = p->act_max;
    mult = {p->output_multiplier};
    shift = {p->output_shift};
  }
  const ir::OpType type =
      code == op::kAdd ? ir::OpType::kQAdd : (mul ? ir::OpType::kQMul : ir::OpType::kQSub);
  ir::Op& op = l.AddOp(type, {l.Tensor(l.InIndex(0)), l.Tensor(l.InIndex(1))},
                       {l.Tensor(l.op().outputs[0])}, attrs);
  l.AddRequantInputs(op, std::move(mult), std::move(shift));
  return OkStatus();
}

// MAXIMUM / MINIMUM compare raw int8 values: TFLite Micro requires nothing of the
// parameters, and its result is only meaningful when all three tensors share them; a graph
// whose tensors differ is refused (the TFLite converter gives them one set).
Status LowerMinMax(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::MaximumMinimumOptions, true));
  TF_RETURN_IF_ERROR(CheckBinary(l));
  const char* why = "TFLite's int8 MAXIMUM / MINIMUM compare raw values and do not rescale";
  TF_RETURN_IF_ERROR(l.ExpectSameQuant(l.Out(0), "outputs[0]", l.In(0), "inputs[0]", why));
  TF_RETURN_IF_ERROR(l.ExpectSameQuant(l.Out(0), "outputs[0]", l.In(1), "inputs[1]", why));
  const bool max = l.op().code == op::kMaximum;
  l.AddOp(max ? ir::OpType::kQMaximum : ir::OpType::kQMinimum,
          {l.Tensor(l.InIndex(0)), l.Tensor(l.InIndex(1))}, {l.Tensor(l.op().outputs[0])},
          ir::NoAttrs{});
  return OkStatus();
}

// BATCH_MATMUL: qbmm with TFLite's adj_x / adj_y; either operand may be a constant. The
// batch dims broadcast as far as the kernel repeats operands (quant::BmmParams says when not).
Status LowerBatchMatmul(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::BatchMatMulOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(2, 2, 1));
  const TfOptions& o = l.op().options;
  if (o.asymmetric_quantize_inputs) {
    return l.Fail("asymmetric_quantize_inputs: hybrid (float input) BATCH_MATMUL is not supported");
  }
  TF_RETURN_IF_ERROR(l.ExpectAct(l.In(0), "inputs[0]", true));
  TF_RETURN_IF_ERROR(l.ExpectAct(l.In(1), "inputs[1]", true));
  TF_RETURN_IF_ERROR(l.ExpectAct(l.Out(0), "outputs[0]"));
  const TfTensor& a = *l.In(0);
  const TfTensor& b = *l.In(1);
  ir::QBmmAttrs attrs;
  attrs.adj_x = o.adj_x;
  attrs.adj_y = o.adj_y;
  auto shapes = ir::InferShapes(ir::OpType::kQBmm, attrs,
                                std::vector<ir::Shape>{Shape64(a.shape), Shape64(b.shape)});
  if (!shapes.ok()) return l.Fail(shapes.error().message());
  std::vector<int32_t> want;
  for (int64_t d : (*shapes)[0]) want.push_back(static_cast<int32_t>(d));
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  ir::Op& op = l.AddOp(ir::OpType::kQBmm, {l.Tensor(l.InIndex(0)), l.Tensor(l.InIndex(1))},
                       {l.Tensor(l.op().outputs[0])}, attrs);
  auto p = quant::BmmParams(l.graph(), op);
  if (!p.ok()) return l.Fail(p.error().message());
  l.AddRequantInputs(op, {p->multiplier}, {p->shift});
  return OkStatus();
}

Status LowerSquaredDifference(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::SquaredDifferenceOptions, true));
  TF_RETURN_IF_ERROR(CheckBinary(l));
  const TfTensor& a = *l.In(0);
  const TfTensor& b = *l.In(1);
  auto p = quant::MakeSquaredDifferenceParams(Dims32(a), Dims32(b), Q(a), Q(b), Q(*l.Out(0)));
  if (!p.ok()) return l.Fail(p.error().message());
  ir::Op& op = l.AddOp(ir::OpType::kQSquaredDifference,
                       {l.Tensor(l.InIndex(0)), l.Tensor(l.InIndex(1))},
                       {l.Tensor(l.op().outputs[0])}, ir::ClampAttrs{p->act_min, p->act_max});
  l.AddRequantInputs(op, {p->input1_multiplier, p->input2_multiplier, p->output_multiplier},
                     {p->input1_shift, p->input2_shift, p->output_shift});
  return OkStatus();
}

Status LowerSoftmax(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::SoftmaxOptions, false));
  TF_RETURN_IF_ERROR(CheckUnary(l));
  const TfTensor& x = *l.In(0);
  if (x.shape.empty()) return l.Fail("inputs[0]: SOFTMAX needs at least one dimension");
  const float beta = l.op().options.beta;
  if (!(beta > 0.0f) || !std::isfinite(beta)) {
    return l.Fail("beta: " + std::to_string(beta) + ", must be finite and > 0");
  }
  auto p = quant::MakeSoftmaxParams(Dims32(x), beta, Q(x), Q(*l.Out(0)));
  if (!p.ok()) return l.Fail(p.error().message());
  ir::SoftmaxAttrs a;
  a.axis = -1;
  ir::Op& op = l.AddOp(ir::OpType::kQSoftmax, {l.Tensor(l.InIndex(0))},
                       {l.Tensor(l.op().outputs[0])}, a);
  l.AddRequantInputs(op, {p->input_multiplier}, {p->input_left_shift});
  return OkStatus();
}

// Each entry is TFLite Micro's own integer algorithm (or, for ELU, GELU and int8 EXP / LOG,
// TFLite's float table; for RSQRT, TFLite's integer Newton steps)
// evaluated on that input at compile time (compiler/quant/params_lut.cc).
Status LowerLut(Lowering& l) {
  const int32_t code = l.op().code;
  if (code != op::kExp && code != op::kLog) {  // (EXP's options table has no fields)
    TF_RETURN_IF_ERROR(l.ExpectOptions(code == op::kLeakyRelu   ? Options::LeakyReluOptions
                                       : code == op::kHardSwish ? Options::HardSwishOptions
                                       : code == op::kGelu      ? Options::GeluOptions
                                                                : Options::NONE,
                                       code != op::kLeakyRelu));
  }
  TF_RETURN_IF_ERROR(CheckUnary(l));
  const TfTensor& x = *l.In(0);
  const TfTensor& y = *l.Out(0);
  Expected<quant::LutTable> table = Error{""};
  if (code == op::kLogistic || code == op::kTanh) {
    // TFLM's input radius, 15 * 2^27 / 2^left_shift with left_shift = exponent of
    // in_scale * 2^27, only fits int32 (TFLM casts it unchecked) when in_scale >= 2^-28.
    if (static_cast<double>(x.quant->scale[0]) < std::ldexp(1.0, -28)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(x.quant->scale[0]));
      return l.Fail(std::string("inputs[0]: scale ") + buf +
                    " is below 2^-28: the kernel's input range radius would overflow int32");
    }
    table = code == op::kLogistic ? quant::LogisticTable(Q(x), Q(y)) : quant::TanhTable(Q(x), Q(y));
  } else if (code == op::kHardSwish) {
    table = quant::HardSwishTable(Q(x), Q(y));
  } else if (code == op::kLeakyRelu) {
    table = quant::LeakyReluTable(Q(x), Q(y), l.op().options.alpha);
  } else if (code == op::kRsqrt) {
    table = quant::RsqrtTable(Q(x), Q(y));
  } else {
    using F = quant::FloatLutFn;
    const F fn = code == op::kGelu  ? (l.op().options.approximate ? F::kGeluTanh : F::kGelu)
                 : code == op::kExp ? F::kExp
                 : code == op::kLog ? F::kLog
                                    : F::kElu;
    table = quant::FloatLutTable(Q(x), Q(y), fn);
  }
  if (!table.ok()) return l.Fail(table.error().message());
  const ir::TensorId t = l.AddInt8Table(l.UniqueName(y.name + ".table"), *table, y);
  l.AddOp(ir::OpType::kQLut, {l.Tensor(l.InIndex(0)), t}, {l.Tensor(l.op().outputs[0])},
          ir::NoAttrs{});
  return OkStatus();
}

// PRELU: a constant slope tensor whose values are all equal (Keras PReLU with shared_axes
// over every dim, or an untrained one) is one table; other slopes (per channel, per element,
// or an activation) broadcast against x in a qprelu with TFLM's two multipliers.
Status LowerPrelu(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::NONE, true));
  TF_RETURN_IF_ERROR(CheckBinary(l));
  const TfTensor& x = *l.In(0);
  const TfTensor& alpha = *l.In(1);
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(x.shape));
  const auto* a = alpha.data ? reinterpret_cast<const int8_t*>(alpha.data->data()) : nullptr;
  const size_t n = alpha.data ? alpha.data->size() : 0;
  if (!a || n == 0 || std::any_of(a, a + n, [&](int8_t v) { return v != a[0]; })) {
    auto p = quant::MakePreluParams(Dims32(x), Dims32(alpha), Q(x), Q(alpha), Q(y));
    if (!p.ok()) return l.Fail(p.error().message());
    ir::Op& op = l.AddOp(ir::OpType::kQPrelu, {l.Tensor(l.InIndex(0)), l.Tensor(l.InIndex(1))},
                         {l.Tensor(l.op().outputs[0])}, ir::NoAttrs{});
    l.AddRequantInputs(op, {p->output_multiplier_1, p->output_multiplier_2},
                       {p->output_shift_1, p->output_shift_2});
    return OkStatus();
  }
  auto table = quant::PreluTable(Q(x), Q(alpha), a[0], Q(y));
  if (!table.ok()) return l.Fail(table.error().message());
  const ir::TensorId t = l.AddInt8Table(l.UniqueName(y.name + ".table"), *table, y);
  l.AddOp(ir::OpType::kQLut, {l.Tensor(l.InIndex(0)), t}, {l.Tensor(l.op().outputs[0])},
          ir::NoAttrs{});
  return OkStatus();
}

// GATHER of int8 values along `axis` by INT32 indices (a constant or an input), batch_dims
// 0: the `gather` op, y quantized as x (TFLite's GATHER copies the int8 values).
Status LowerGather(Lowering& l) {
  if (FoldsInts(l)) return FoldIntOp(l);
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::GatherOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(2, 2, 1));
  const TfTensor& x = *l.In(0);
  const TfTensor& idx = *l.In(1);
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]", true));
  TF_RETURN_IF_ERROR(l.ExpectAct(&y, "outputs[0]"));
  if (idx.type != static_cast<int8_t>(TfType::kInt32) || idx.quant) {
    return l.Fail("inputs[1]: indices of type " + TfTypeName(idx.type) +
                  ", expected INT32 without quantization")
        .WithKind(ErrorKind::kUnsupported);
  }
  if (l.op().options.batch_dims != 0) {
    return l.Fail("batch_dims " + std::to_string(l.op().options.batch_dims) +
                  ": only 0 is supported")
        .WithKind(ErrorKind::kUnsupported);
  }
  if (!x.quant || !y.quant || x.quant->scale != y.quant->scale ||
      x.quant->zero_point != y.quant->zero_point) {
    return l.Fail("outputs[0]: quantization differs from inputs[0]'s");
  }
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = l.op().options.axis;
  if (rank == 0 || axis < -rank || axis >= rank) {
    return l.Fail("axis " + std::to_string(axis) + " out of range for rank " +
                  std::to_string(rank));
  }
  const int64_t ax = axis < 0 ? axis + rank : axis;
  std::vector<int32_t> want(x.shape.begin(), x.shape.begin() + ax);
  want.insert(want.end(), idx.shape.begin(), idx.shape.end());
  want.insert(want.end(), x.shape.begin() + ax + 1, x.shape.end());
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  int64_t count = 1;
  for (int32_t d : idx.shape) count *= d;
  const bool wrap = l.Wrapped(l.InIndex(1));  // after Keras Embedding's SELECT (LowerIndexWrap)
  auto p = quant::MakeGatherParams(Dims32(x), ax, wrap, count);
  if (!p.ok()) return l.Fail(p.error().message());
  l.AddOp(ir::OpType::kGather, {l.Tensor(l.InIndex(0)), l.Tensor(l.InIndex(1))},
          {l.Tensor(l.op().outputs[0])}, ir::GatherAttrs{ax, wrap});
  return OkStatus();
}

namespace {

// The ops consuming TFLite tensor `t`.
std::vector<size_t> Consumers(const TfliteModel& m, int32_t t) {
  std::vector<size_t> out;
  for (size_t k = 0; k < m.ops.size(); ++k) {
    for (int32_t in : m.ops[k].inputs) {
      if (in == t) {
        out.push_back(k);
        break;
      }
    }
  }
  return out;
}

// The op writing TFLite tensor `t`, or nullptr (a graph input or constant).
const TfOp* Producer(const TfliteModel& m, int32_t t) {
  for (const TfOp& o : m.ops) {
    for (int32_t out : o.outputs) {
      if (out == t) return &o;
    }
  }
  return nullptr;
}

bool IsScalarInt(const TfTensor& t, int64_t value) {
  if (t.type != static_cast<int8_t>(TfType::kInt32) || !t.data) return false;
  const std::vector<int64_t> v = IntValues(t);
  return v.size() == 1 && v[0] == value;
}

// SELECT(LESS(i, 0), ADD(i, n), i) whose output only GATHERs read, each along an axis of
// size n: i (the TFLite tensor index), or -1.
int32_t MatchIndexWrap(const TfliteModel& m, const TfOp& sel) {
  if ((sel.code != op::kSelect && sel.code != op::kSelectV2) || sel.inputs.size() != 3 ||
      sel.outputs.size() != 1) {
    return -1;
  }
  const int32_t i = sel.inputs[2];
  const TfOp* less = Producer(m, sel.inputs[0]);
  const TfOp* add = Producer(m, sel.inputs[1]);
  const auto tensor = [&](int32_t k) -> const TfTensor& { return m.tensors[static_cast<size_t>(k)]; };
  if (i < 0 || tensor(i).type != static_cast<int8_t>(TfType::kInt32) || tensor(i).data ||
      less == nullptr || less->code != op::kLess || less->inputs.size() != 2 ||
      less->inputs[0] != i || !IsScalarInt(tensor(less->inputs[1]), 0) || add == nullptr ||
      add->code != op::kAdd || add->inputs.size() != 2 || add->inputs[0] != i ||
      add->options.activation != 0) {
    return -1;
  }
  const TfTensor& n = tensor(add->inputs[1]);
  if (n.type != static_cast<int8_t>(TfType::kInt32) || !n.data || IntValues(n).size() != 1) {
    return -1;
  }
  const int64_t size = IntValues(n)[0];
  const std::vector<size_t> readers = Consumers(m, sel.outputs[0]);
  if (readers.empty() || Consumers(m, less->outputs[0]).size() != 1 ||
      Consumers(m, add->outputs[0]).size() != 1) {
    return -1;
  }
  for (size_t k : readers) {
    const TfOp& g = m.ops[k];
    if (g.code != op::kGather || g.inputs.size() != 2 || g.inputs[1] != sel.outputs[0] ||
        g.inputs[0] < 0) {
      return -1;
    }
    const TfTensor& x = tensor(g.inputs[0]);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const int64_t axis = g.options.axis < 0 ? g.options.axis + rank : g.options.axis;
    if (axis < 0 || axis >= rank || x.shape[static_cast<size_t>(axis)] != size) return -1;
  }
  return i;
}

}  // namespace

// Keras' Embedding converts to SELECT(LESS(ids, 0), ids + n, ids) -> GATHER (a negative id
// counts from the end). The three int32 ops emit nothing: the GATHER reads the ids and wraps
// negative ones itself (s8_gather_params.wrap_negative). Any other use of LESS, int32 ADD or
// SELECT is refused.
Status LowerIndexWrap(Lowering& l) {
  const TfliteModel& m = l.model();
  const TfOp& o = l.op();
  const TfOp* sel = &o;
  if (o.code != op::kSelect && o.code != op::kSelectV2) {
    const std::vector<size_t> readers = o.outputs.size() == 1
                                            ? Consumers(m, o.outputs[0])
                                            : std::vector<size_t>{};
    sel = readers.size() == 1 ? &m.ops[readers[0]] : nullptr;
  }
  const int32_t ids = sel ? MatchIndexWrap(m, *sel) : -1;
  if (ids < 0) {
    return l.Fail("supported only as the index wrap in front of a GATHER: SELECT(LESS(i, 0), "
                  "i + n, i) with n the gathered axis' size (Keras Embedding)")
        .WithKind(ErrorKind::kUnsupported);
  }
  if (sel == &o) l.SetWrapped(o.outputs[0], ids);
  return OkStatus();
}

// ARG_MAX / ARG_MIN over one constant axis of an int8 input: int32 indices (an INT64
// output type is refused: the runtime has no int64 tensors). The int8 values are compared
// raw (TFLite's ArgMinMax on int8 does the same), ties to the lowest index.
Status LowerArgMax(Lowering& l) {
  const bool min = l.op().code == op::kArgMin;
  TF_RETURN_IF_ERROR(l.ExpectOptions(min ? Options::ArgMinOptions : Options::ArgMaxOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(2, 2, 1));
  const TfTensor& x = *l.In(0);
  const TfTensor& axis_t = *l.In(1);
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  if (y.type != static_cast<int8_t>(TfType::kInt32) || l.op().options.out_type != 2) {
    return l.Fail("outputs[0]: type " + TfTypeName(y.type) +
                  ", expected INT32 (output_type int32; int64 indices are not supported)")
        .WithKind(ErrorKind::kUnsupported);
  }
  if (axis_t.type != static_cast<int8_t>(TfType::kInt32) &&
      axis_t.type != static_cast<int8_t>(TfType::kInt64)) {
    return l.Fail("inputs[1]: axis type " + TfTypeName(axis_t.type) + ", expected INT32");
  }
  TF_RETURN_IF_ERROR(l.ExpectConstant(&axis_t, "inputs[1]"));
  const std::vector<int64_t> axes = IntValues(axis_t);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (axes.size() != 1 || axes[0] < -rank || axes[0] >= rank) {
    return l.Fail("inputs[1]: expected one axis in [" + std::to_string(-rank) + ", " +
                  std::to_string(rank) + ")");
  }
  const int64_t axis = axes[0] < 0 ? axes[0] + rank : axes[0];
  std::vector<int32_t> want = x.shape;
  want.erase(want.begin() + axis);
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  auto p = quant::MakeArgMaxParams(Dims32(x), axis, min);
  if (!p.ok()) return l.Fail(p.error().message());
  l.AddOp(ir::OpType::kArgMax, {l.Tensor(l.InIndex(0))}, {l.Tensor(l.op().outputs[0])},
          ir::ArgMaxAttrs{axis, false, min});
  return OkStatus();
}

Status LowerRelu(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::NONE, true));
  TF_RETURN_IF_ERROR(CheckUnary(l));
  const TfTensor& x = *l.In(0);
  const TfTensor& y = *l.Out(0);
  const bool relu6 = l.op().code == op::kRelu6;
  if (relu6) {
    // TFLM's Relu6Quantized clamps in the input's scale and never rescales; a requantize op
    // cannot express that when the output is labelled with other parameters.
    TF_RETURN_IF_ERROR(l.ExpectSameQuant(&y, "outputs[0]", &x, "inputs[0]",
                                         "TFLite Micro's RELU6 does not rescale"));
  }
  auto p = quant::MakeReluParams(Size32(x), relu6 ? quant::Activation::kRelu6
                                                  : quant::Activation::kRelu,
                                 Q(x), Q(y));
  if (!p.ok()) return l.Fail(p.error().message());
  ir::ClampAttrs a;
  a.act_min = p->act_min;
  a.act_max = p->act_max;
  ir::Op& op = l.AddOp(ir::OpType::kRequantize, {l.Tensor(l.InIndex(0))},
                       {l.Tensor(l.op().outputs[0])}, a);
  l.AddRequantInputs(op, {p->multiplier}, {p->shift});
  return OkStatus();
}

}  // namespace tinyforge::import::tflite::internal
