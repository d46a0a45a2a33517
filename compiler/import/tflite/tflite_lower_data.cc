// Data movement and the graph's edges: RESHAPE/SQUEEZE (a view: IR reshape), PAD/PADV2,
// CONCATENATION, QUANTIZE (float input edge, or int8 -> int8 requantize) and DEQUANTIZE
// (float output edge).
#include <algorithm>
#include <optional>

#include "import/tflite/tflite_lower_internal.h"
#include "ir/shape_inference.h"

namespace tinyforge::import::tflite::internal {
namespace {

bool IsGraphInput(const TfliteModel& m, int32_t t) {
  return std::find(m.inputs.begin(), m.inputs.end(), t) != m.inputs.end();
}
bool IsGraphOutput(const TfliteModel& m, int32_t t) {
  return std::find(m.outputs.begin(), m.outputs.end(), t) != m.outputs.end();
}

// RESHAPE's target (new_shape option or constant shape operand) resolved against the
// input's element count: at most one -1, every other entry >= 1.
Expected<std::vector<int32_t>> ResolveShape(const Lowering& l, const std::vector<int64_t>& spec,
                                            int64_t numel, const std::string& field) {
  int64_t known = 1;
  int unknown = -1;
  for (size_t i = 0; i < spec.size(); ++i) {
    if (spec[i] == -1 && unknown < 0) {
      unknown = static_cast<int>(i);
    } else if (spec[i] < 1 || spec[i] > numel) {
      return l.Fail(field + ": entry " + std::to_string(spec[i]) + " is not a valid dim");
    } else {
      known *= spec[i];
      if (known > numel) return l.Fail(field + ": holds more elements than the input");
    }
  }
  std::vector<int32_t> out(spec.begin(), spec.end());
  if (unknown >= 0) {
    if (numel % known != 0) return l.Fail(field + ": -1 cannot be resolved");
    out[static_cast<size_t>(unknown)] = static_cast<int32_t>(numel / known);
  } else if (known != numel) {
    return l.Fail(field + ": " + std::to_string(known) + " elements, the input has " +
                  std::to_string(numel));
  }
  return out;
}

}  // namespace

Status LowerReshape(Lowering& l) {
  const bool squeeze = l.op().code == op::kSqueeze;
  TF_RETURN_IF_ERROR(l.ExpectOptions(squeeze ? Options::SqueezeOptions : Options::ReshapeOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(1, squeeze ? 1 : 2, 1));
  if (FoldsInts(l)) return FoldIntOp(l);
  const TfTensor& x = *l.In(0);
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectAct(&y, "outputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectSameQuant(&y, "outputs[0]", &x, "inputs[0]",
                                       "a reshape only reinterprets the bytes"));
  // A target computed from SHAPE (dynamic batch) that disagrees with the output tensor: the
  // converter left a dim other than the batch unknown until run time and wrote 1 for it in
  // `shape` (Keras' UpSampling2D or a Dense on a 3-D input, saved with batch None); the
  // tensors after it carry such placeholders too, so the graph cannot be read for batch 1.
  if (const TfTensor* s = l.In(1); !squeeze && s && !s->is_constant()) {
    if (auto spec = l.KnownInts(l.InIndex(1))) {
      auto want = ResolveShape(l, *spec, x.num_elements(), "inputs[1]");
      if (want && *want != y.shape) {
        return l.Fail("outputs[0]: shape " + ShapeText(y.shape) + " in the file, but the shape "
                      "computed for batch 1 is " + ShapeText(*want) + ": the converter left a "
                      "dim other than the batch unknown until run time; save the model with a "
                      "fixed batch (tf.keras.Input(..., batch_size=1))")
            .WithKind(ErrorKind::kUnsupported);
      }
    }
  }
  if (y.num_elements() != x.num_elements()) {
    return l.Fail("outputs[0]: shape " + ShapeText(y.shape) + " has " +
                  std::to_string(y.num_elements()) + " elements, the input " +
                  ShapeText(x.shape) + " has " + std::to_string(x.num_elements()));
  }
  if (squeeze) {
    // The output shape is the input's without the squeezed (size-1) dims.
    const std::vector<int32_t>& dims = l.op().options.squeeze_dims;
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::vector<bool> drop(x.shape.size(), dims.empty());
    for (int32_t d : dims) {
      if (d < -rank || d >= rank) {
        return l.Fail("squeeze_dims: " + std::to_string(d) + " is out of range for rank " +
                      std::to_string(rank));
      }
      drop[static_cast<size_t>(d < 0 ? d + rank : d)] = true;
    }
    std::vector<int32_t> want;
    for (size_t i = 0; i < x.shape.size(); ++i) {
      if (!(drop[i] && x.shape[i] == 1)) want.push_back(x.shape[i]);
    }
    TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  } else {
    // The target, from the shape operand if it is constant, else from the options; the
    // output tensor's shape must agree with it (it is what TFLite allocates).
    std::vector<int64_t> spec;
    std::string field;
    if (const TfTensor* s = l.In(1); s && (s->is_constant() || l.KnownInts(l.InIndex(1)))) {
      if (s->type != static_cast<int8_t>(TfType::kInt32) &&
          s->type != static_cast<int8_t>(TfType::kInt64)) {
        return l.Fail("inputs[1]: shape type " + TfTypeName(s->type) + ", expected INT32");
      }
      spec = *l.KnownInts(l.InIndex(1));  // a constant, or folded from SHAPE (batch 1)
      field = "inputs[1]";
    } else if (!l.op().options.new_shape.empty()) {
      spec.assign(l.op().options.new_shape.begin(), l.op().options.new_shape.end());
      field = "new_shape";
    }
    if (!field.empty()) {
      TF_ASSIGN_OR_RETURN(std::vector<int32_t> want,
                          ResolveShape(l, spec, x.num_elements(), field));
      TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
    }
  }
  ir::ReshapeAttrs a;
  a.shape = Shape64(y.shape);
  l.AddOp(ir::OpType::kReshape, {l.Tensor(l.InIndex(0))}, {l.Tensor(l.op().outputs[0])}, a);
  return OkStatus();
}

Status LowerPad(Lowering& l) {
  const bool v2 = l.op().code == op::kPadV2;
  TF_RETURN_IF_ERROR(l.ExpectOptions(v2 ? Options::PadV2Options : Options::PadOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(2, v2 ? 3 : 2, 1));
  const TfTensor& x = *l.In(0);
  const TfTensor& p = *l.In(1);
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectAct(&y, "outputs[0]"));
  TF_RETURN_IF_ERROR(
      l.ExpectSameQuant(&y, "outputs[0]", &x, "inputs[0]", "TFLite's int8 PAD does not rescale"));
  if (x.shape.size() > 5) {
    return l.Fail("inputs[0]: shape " + ShapeText(x.shape) + ", PAD supports up to 5 dims");
  }
  if (p.type != static_cast<int8_t>(TfType::kInt32) &&
      p.type != static_cast<int8_t>(TfType::kInt64)) {
    return l.Fail("inputs[1]: paddings type " + TfTypeName(p.type) + ", expected INT32");
  }
  TF_RETURN_IF_ERROR(l.ExpectConstant(&p, "inputs[1]"));
  const std::vector<int32_t> want_p = {static_cast<int32_t>(x.shape.size()), 2};
  if (p.shape != want_p) {
    return l.Fail("inputs[1]: paddings shape " + ShapeText(p.shape) + ", expected " +
                  ShapeText(want_p));
  }
  const std::vector<int64_t> pads = IntValues(p);
  std::vector<int32_t> want;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    const int64_t before = pads[2 * d], after = pads[2 * d + 1];
    if (before < 0 || after < 0 || before > (1 << 24) || after > (1 << 24)) {
      return l.Fail("inputs[1]: paddings of dim " + std::to_string(d) + " are " +
                    std::to_string(before) + ", " + std::to_string(after) +
                    "; must be in [0, 2^24]");
    }
    want.push_back(static_cast<int32_t>(x.shape[d] + before + after));
  }
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  ir::QPadAttrs a;
  a.padding = pads;
  a.value = y.quant->zero_point[0];
  if (const TfTensor* c = v2 ? l.In(2) : nullptr) {
    TF_RETURN_IF_ERROR(l.ExpectAct(c, "inputs[2]", true));
    TF_RETURN_IF_ERROR(l.ExpectConstant(c, "inputs[2]"));
    if (c->num_elements() != 1) {
      return l.Fail("inputs[2]: constant_values shape " + ShapeText(c->shape) +
                    ", expected one value");
    }
    TF_RETURN_IF_ERROR(l.ExpectSameQuant(c, "inputs[2]", &y, "outputs[0]",
                                         "TFLite pads with the raw int8 value"));
    a.value = static_cast<int8_t>((*c->data)[0]);
  }
  l.AddOp(ir::OpType::kQPad, {l.Tensor(l.InIndex(0))}, {l.Tensor(l.op().outputs[0])}, a);
  return OkStatus();
}

Status LowerConcatenation(Lowering& l) {
  if (FoldsInts(l)) return FoldIntOp(l);
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::ConcatenationOptions, false));
  const size_t n = l.op().inputs.size();
  TF_RETURN_IF_ERROR(l.ExpectCounts(1, std::max<size_t>(n, 1), 1));
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&y, "outputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectActivation({TfActivation::kNone}));
  const int64_t rank = static_cast<int64_t>(y.shape.size());
  int64_t axis = l.op().options.axis;
  if (axis < -rank || axis >= rank) {
    return l.Fail("axis: " + std::to_string(axis) + " is out of range for rank " +
                  std::to_string(rank));
  }
  if (axis < 0) axis += rank;
  std::vector<int64_t> want;  // int64: the concatenated extent may exceed int32
  std::vector<ir::TensorId> inputs;
  for (size_t i = 0; i < n; ++i) {
    const std::string field = "inputs[" + std::to_string(i) + "]";
    const TfTensor* x = l.In(i);
    if (!x) return l.Fail(field + ": required input is omitted (-1)");
    TF_RETURN_IF_ERROR(l.ExpectAct(x, field, true));
    TF_RETURN_IF_ERROR(l.ExpectRank(x, field, static_cast<size_t>(rank)));
    TF_RETURN_IF_ERROR(l.ExpectSameQuant(
        x, field, &y, "outputs[0]",
        "TFLite Micro copies CONCATENATION inputs unscaled, so they must share the output's "
        "parameters (the converter inserts QUANTIZE ops otherwise)"));
    if (i == 0) {
      want = Shape64(x->shape);
      want[static_cast<size_t>(axis)] = 0;
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && x->shape[static_cast<size_t>(d)] != want[static_cast<size_t>(d)]) {
        return l.Fail(field + ": shape " + ShapeText(x->shape) + " differs from inputs[0] " +
                      "outside axis " + std::to_string(axis));
      }
    }
    want[static_cast<size_t>(axis)] += x->shape[static_cast<size_t>(axis)];
    inputs.push_back(l.Tensor(l.InIndex(i)));
  }
  if (Shape64(y.shape) != want) {
    return l.Fail("outputs[0]: shape " + ShapeText(y.shape) + " does not match the inputs "
                  "concatenated on axis " + std::to_string(axis));
  }
  ir::CatAttrs a;
  a.axis = axis;
  l.AddOp(ir::OpType::kQConcat, std::move(inputs), {l.Tensor(l.op().outputs[0])}, a);
  return OkStatus();
}

Status LowerQuantize(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::QuantizeOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(1, 1, 1));
  const TfTensor& x = *l.In(0);
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&y, "outputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(x.shape));
  if (x.type == static_cast<int8_t>(TfType::kFloat32)) {
    const int32_t in = l.InIndex(0);
    bool after_float_op = false;
    for (const TfOp& o : l.model().ops) {
      for (int32_t t : o.outputs) after_float_op = after_float_op || (t == in && IsFloatFn(o.code));
    }
    if (!IsGraphInput(l.model(), in) && !after_float_op) {
      return l.Fail("inputs[0]: float QUANTIZE is supported only on a graph input or after a "
                    "float op this importer runs in float32 (float stays at the edges)");
    }
    l.AddOp(ir::OpType::kQuantize, {l.Tensor(l.InIndex(0))}, {l.Tensor(l.op().outputs[0])},
            ir::NoAttrs{});
    return OkStatus();
  }
  if (x.type != static_cast<int8_t>(TfType::kInt8)) {
    return l.Fail("inputs[0]: type " + TfTypeName(x.type) + ", expected FLOAT32 or INT8");
  }
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  if (l.op().via_float) {
    // The file's QUANTIZE read floats an island of data movement made from these int8s.
    auto table = quant::DequantQuantTable(Q(x), Q(y));
    if (!table.ok()) return l.Fail(table.error().message());
    const ir::TensorId t = l.AddInt8Table(l.UniqueName(y.name + ".table"), *table, y);
    l.AddOp(ir::OpType::kQLut, {l.Tensor(l.InIndex(0)), t}, {l.Tensor(l.op().outputs[0])},
            ir::NoAttrs{});
    return OkStatus();
  }
  // int8 -> int8 inside the graph: TFLM's Requantize, (double)in / (double)out.
  auto p = quant::MakeRequantizeParams(static_cast<int32_t>(x.num_elements()), Q(x), Q(y));
  if (!p.ok()) return l.Fail(p.error().message());
  ir::ClampAttrs a;
  a.act_min = p->act_min;
  a.act_max = p->act_max;
  ir::Op& op = l.AddOp(ir::OpType::kRequantize, {l.Tensor(l.InIndex(0))},
                       {l.Tensor(l.op().outputs[0])}, a);
  l.AddRequantInputs(op, {p->multiplier}, {p->shift});
  return OkStatus();
}

namespace {

// The float fallback functions of the .tflite ops LowerFloatFn takes.
std::optional<ir::FloatFn> FloatFnOf(int32_t code) {
  switch (code) {
    case op::kExp: return ir::FloatFn::kExp;
    case op::kNeg: return ir::FloatFn::kNeg;
    case op::kSin: return ir::FloatFn::kSin;
    case op::kLog: return ir::FloatFn::kLog;
    case op::kSqrt: return ir::FloatFn::kSqrt;
    case op::kPow: return ir::FloatFn::kPow;
    case op::kAbs: return ir::FloatFn::kAbs;
    case op::kCos: return ir::FloatFn::kCos;
    case op::kAtan2: return ir::FloatFn::kAtan2;
    default: return std::nullopt;
  }
}

}  // namespace

bool IsFloatFn(int32_t code) { return FloatFnOf(code).has_value(); }

bool ReadByFloatOp(const TfliteModel& m, int32_t t) {
  for (const TfOp& o : m.ops) {
    if (!IsFloatFn(o.code)) continue;
    for (int32_t x : o.inputs) {
      if (x == t) return true;
    }
  }
  return false;
}

// The first op reading float tensor `t` (a DEQUANTIZE's output), named for the diagnostic:
// the converter leaves a layer it could not quantize in float32 (a DEPTHWISE_CONV_2D with
// float weights between DEQUANTIZE and QUANTIZE, docs/decisions.md 79), and the user needs to
// know which layer that is, not only that the DEQUANTIZE is unexpected.
namespace {
std::string FloatReaderNote(const TfliteModel& m, int32_t t) {
  for (size_t i = 0; i < m.ops.size(); ++i) {
    for (int32_t x : m.ops[i].inputs) {
      if (x != t) continue;
      return "; op #" + std::to_string(i) + " (" + m.ops[i].name() +
             ") reads it in float32: the converter left that op unquantized, and float "
             "layers are not imported (convert it to int8, e.g. with other weights or more "
             "calibration data)";
    }
  }
  return "";
}
}  // namespace

Status LowerFloatFn(Lowering& l) {
  // int8 EXP / LOG (TFLite fills a float table for them): one table lookup.
  const int32_t code = l.op().code;
  if ((code == op::kExp || code == op::kLog) && l.In(0) &&
      l.In(0)->type == static_cast<int8_t>(TfType::kInt8)) {
    return LowerLut(l);
  }
  const ir::FloatFn fn = *FloatFnOf(l.op().code);
  const int arity = ir::FloatFnArity(fn);
  TF_RETURN_IF_ERROR(l.ExpectCounts(arity, arity, 1));
  std::vector<ir::TensorId> ins;
  std::vector<ir::Shape> shapes;
  for (int i = 0; i < arity; ++i) {
    const TfTensor& x = *l.In(i);
    if (x.type != static_cast<int8_t>(TfType::kFloat32)) {
      return l.Fail("inputs[" + std::to_string(i) + "]: type " + TfTypeName(x.type) +
                    ", expected FLOAT32 (int8 " + l.op().name() + " is not supported; the " +
                    "float op runs in float32 between DEQUANTIZE and QUANTIZE)");
    }
    ins.push_back(l.Tensor(l.InIndex(i)));
    shapes.push_back(Shape64(x.shape));
  }
  if (l.Out(0)->type != static_cast<int8_t>(TfType::kFloat32)) {
    return l.Fail("outputs[0]: type " + TfTypeName(l.Out(0)->type) + ", expected FLOAT32");
  }
  const ir::OpType type = arity == 1 ? ir::OpType::kUnary : ir::OpType::kBinary;
  auto inferred = ir::InferShapes(type, ir::FloatFnAttrs{fn}, shapes);
  if (!inferred.ok()) return l.Fail(inferred.error().message());
  std::vector<int32_t> want((*inferred)[0].begin(), (*inferred)[0].end());
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  l.AddOp(type, ins, {l.Tensor(l.op().outputs[0])}, ir::FloatFnAttrs{fn});
  return OkStatus();
}

Status LowerDequantize(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::DequantizeOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(1, 1, 1));
  const TfTensor& x = *l.In(0);
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  if (y.type != static_cast<int8_t>(TfType::kFloat32)) {
    return l.Fail("outputs[0]: type " + TfTypeName(y.type) + ", expected FLOAT32");
  }
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(x.shape));
  if (!IsGraphOutput(l.model(), l.op().outputs[0]) &&
      !ReadByFloatOp(l.model(), l.op().outputs[0])) {
    return l.Fail("outputs[0]: DEQUANTIZE is supported only on a graph output, before a "
                  "float op this importer runs in float32 (EXP, LOG, SQRT, SIN, COS, "
                  "ABS, NEG, POW, ATAN2), or before data movement that ends in QUANTIZE" +
                  FloatReaderNote(l.model(), l.op().outputs[0]));
  }
  l.AddOp(ir::OpType::kDequantize, {l.Tensor(l.InIndex(0))}, {l.Tensor(l.op().outputs[0])},
          ir::NoAttrs{});
  return OkStatus();
}

}  // namespace tinyforge::import::tflite::internal
