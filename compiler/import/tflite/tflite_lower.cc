// The lowering driver: op dispatch, operator versions, and the Lowering context's helpers.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "import/tflite/tflite_import.h"
#include "import/tflite/tflite_lower_internal.h"
#include "ir/verifier.h"

namespace tinyforge::import::tflite::internal {
namespace {

using LowerFn = Status (*)(Lowering&);

// The ops the importer lowers. max_version: the highest version TensorFlow's op_version.cc
// assigns to the op; a higher version means an operand type or option this importer does
// not know (the operands and options are checked anyway: the version is a second guard).
struct OpEntry {
  int32_t code;
  int32_t max_version;
  LowerFn lower;
};

constexpr OpEntry kOps[] = {
    {op::kAdd, 5, LowerAddMul},
    {op::kAveragePool2d, 3, LowerPool},
    {op::kConcatenation, 4, LowerConcatenation},
    {op::kConv2d, 8, LowerConv2d},
    {op::kDepthwiseConv2d, 7, LowerDepthwiseConv2d},
    {op::kDequantize, 6, LowerDequantize},
    {op::kFullyConnected, 12, LowerFullyConnected},
    {op::kLogistic, 3, LowerLut},
    {op::kMaxPool2d, 3, LowerPool},
    {op::kMul, 7, LowerAddMul},
    {op::kRelu, 3, LowerRelu},
    {op::kRelu6, 3, LowerRelu},
    {op::kReshape, 1, LowerReshape},
    {op::kSoftmax, 3, LowerSoftmax},
    {op::kTanh, 3, LowerLut},
    {op::kPad, 4, LowerPad},
    {op::kMean, 3, LowerMean},
    {op::kSqueeze, 2, LowerReshape},
    {op::kPadV2, 4, LowerPad},
    {op::kQuantize, 4, LowerQuantize},
    {op::kSub, 5, LowerAddMul},
    {op::kMaximum, 4, LowerMinMax},
    {op::kMinimum, 4, LowerMinMax},
    {op::kSquaredDifference, 2, LowerSquaredDifference},
    {op::kTranspose, 6, LowerTranspose},
    {op::kSlice, 6, LowerSlice},
    {op::kStridedSlice, 8, LowerSlice},
    {op::kSplit, 4, LowerSplit},
    {op::kSplitV, 2, LowerSplit},
    {op::kPack, 4, LowerPack},
    {op::kUnpack, 4, LowerUnpack},
    {op::kExpandDims, 1, LowerExpandDims},
    {op::kShape, 1, LowerShape},
    {op::kLeakyRelu, 2, LowerLut},
    {op::kElu, 2, LowerLut},
    {op::kHardSwish, 1, LowerLut},
    {op::kGelu, 2, LowerLut},
    {op::kRsqrt, 2, LowerLut},
    {op::kSum, 2, LowerMean},
    {op::kReduceMax, 3, LowerMean},
    {op::kReduceMin, 3, LowerMean},
    {op::kReduceProd, 2, LowerReduceProd},
    {op::kPrelu, 1, LowerPrelu},
    {op::kGather, 7, LowerGather},
    {op::kTile, 3, LowerTile},
    {op::kReverseV2, 3, LowerReverse},
    {op::kMirrorPad, 3, LowerMirrorPad},
    {op::kArgMax, 3, LowerArgMax},
    {op::kArgMin, 3, LowerArgMax},
    {op::kTransposeConv, 5, LowerTransposeConv},
    {op::kResizeBilinear, 4, LowerResize},
    {op::kResizeNearestNeighbor, 4, LowerResize},
    {op::kDepthToSpace, 2, LowerDepthSpace},
    {op::kSpaceToDepth, 2, LowerDepthSpace},
    {op::kBatchMatmul, 4, LowerBatchMatmul},
    {op::kUnidirectionalSequenceLstm, 4, LowerSequenceLstm},
    {op::kLess, 3, LowerIndexWrap},
    {op::kSelect, 4, LowerIndexWrap},
    {op::kSelectV2, 2, LowerIndexWrap},
    {op::kExp, 2, LowerFloatFn},
    {op::kNeg, 2, LowerFloatFn},
    {op::kSin, 1, LowerFloatFn},
    {op::kLog, 2, LowerFloatFn},
    {op::kSqrt, 2, LowerFloatFn},
    {op::kPow, 1, LowerFloatFn},
    {op::kAbs, 5, LowerFloatFn},
    {op::kCos, 1, LowerFloatFn},
    {op::kAtan2, 1, LowerFloatFn},
};

std::string SupportedList() {
  std::vector<std::string> names;
  for (const OpEntry& e : kOps) names.push_back(BuiltinOpName(e.code));
  std::sort(names.begin(), names.end());
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

}  // namespace

std::vector<std::pair<std::string, int>> SupportedBuiltins() {
  std::vector<std::pair<std::string, int>> out;
  for (const OpEntry& e : kOps) out.emplace_back(BuiltinOpName(e.code), e.max_version);
  // Unrolled by the reader before lowering (tflite_unroll.cc), never lowered itself.
  out.emplace_back(BuiltinOpName(op::kWhile), kMaxWhileVersion);
  std::sort(out.begin(), out.end());
  return out;
}

// Graph inputs and outputs: int8 with per-tensor quantization, or float32 (then a QUANTIZE
// reads the input / a DEQUANTIZE writes the output; the op checks see to that); outputs may
// also be int32 (ARG_MAX / ARG_MIN indices; the op writing one checks it), and so may inputs
// (GATHER indices, e.g. token ids; the op reading one checks it).
Status CheckEdges(const TfliteModel& m) {
  for (int list = 0; list < 2; ++list) {
    const std::vector<int32_t>& ids = list == 0 ? m.inputs : m.outputs;
    for (size_t i = 0; i < ids.size(); ++i) {
      const TfTensor& t = m.tensors[static_cast<size_t>(ids[i])];
      const bool int8 = t.type == static_cast<int8_t>(TfType::kInt8) && t.quant &&
                        !t.quant->per_channel();
      if (int8 || t.type == static_cast<int8_t>(TfType::kFloat32)) continue;
      if (t.type == static_cast<int8_t>(TfType::kInt32)) continue;
      const bool is_int8 = t.type == static_cast<int8_t>(TfType::kInt8);
      return Error(m.file + ": subgraph: " + (list == 0 ? "inputs[" : "outputs[") +
                   std::to_string(i) + "]: " + TensorLabel(m, ids[i]) + ": type " +
                   TfTypeName(t.type) + (is_int8 ? " without per-tensor quantization" : "") +
                   ", expected INT8 (per-tensor) or FLOAT32");
    }
  }
  return OkStatus();
}

// The index of the data input of a float op that only moves values (each output element is
// one input element), or -1 for any other op.
int DataInput(const TfOp& o) {
  switch (o.code) {
    case op::kSplit: return 1;
    case op::kSplitV: case op::kReshape: case op::kSqueeze: case op::kExpandDims:
    case op::kTranspose: case op::kSlice: case op::kStridedSlice: case op::kUnpack:
    case op::kGather:
      return 0;
    default: return -1;
  }
}

// TF's converter sometimes leaves a data-movement op in float between a DEQUANTIZE and the
// QUANTIZEs after it (an LSTM gate SPLIT, depending on the run). Moving int8 values is the
// same as moving their floats, so such an island runs in int8: the float tensors take the
// DEQUANTIZE's input quantization, the DEQUANTIZE goes, and each QUANTIZE becomes the exact
// dequantize-then-quantize table (via_float). Islands with any other reader stay as they are.
void FoldFloatMovement(TfliteModel& m) {
  const auto is_float = [&](int32_t t) {
    return m.tensors[static_cast<size_t>(t)].type == static_cast<int8_t>(TfType::kFloat32);
  };
  // Who reads each tensor (op, input slot), built once: an island is grown by following
  // readers, so the fold costs the islands' size, not the model's per island tensor.
  std::vector<std::vector<std::pair<size_t, size_t>>> readers(m.tensors.size());
  for (size_t k = 0; k < m.ops.size(); ++k) {
    for (size_t j = 0; j < m.ops[k].inputs.size(); ++j) {
      const int32_t t = m.ops[k].inputs[j];
      if (t >= 0 && static_cast<size_t>(t) < m.tensors.size()) {
        readers[static_cast<size_t>(t)].emplace_back(k, j);
      }
    }
  }
  std::vector<bool> is_output(m.tensors.size(), false);
  for (int32_t t : m.outputs) {
    if (t >= 0 && static_cast<size_t>(t) < m.tensors.size()) is_output[static_cast<size_t>(t)] = true;
  }
  std::vector<bool> is_mover(m.ops.size(), false);
  for (size_t d = 0; d < m.ops.size(); ++d) {
    const TfOp& dq = m.ops[d];
    if (dq.code != op::kDequantize || dq.inputs.size() != 1 || dq.outputs.size() != 1 ||
        dq.inputs[0] < 0) {  // an absent input (-1) is left for the op checks to name
      continue;
    }
    const TfTensor& x = m.tensors[static_cast<size_t>(dq.inputs[0])];
    if (x.type != static_cast<int8_t>(TfType::kInt8) || !x.quant || x.quant->per_channel() ||
        x.is_constant() || !is_float(dq.outputs[0])) {
      continue;
    }
    // Grow the island from the DEQUANTIZE's output; every reader of an island tensor must
    // be a movement op reading it as data, or a float -> int8 QUANTIZE.
    std::vector<int32_t> island{dq.outputs[0]};
    std::vector<size_t> movers, quantizes;
    bool ok = true;
    for (size_t i = 0; ok && i < island.size(); ++i) {
      const int32_t t = island[i];
      if (is_output[static_cast<size_t>(t)]) ok = false;
      for (const auto& [k, j] : readers[static_cast<size_t>(t)]) {
        if (!ok) break;
        const TfOp& o = m.ops[k];
        if (o.code == op::kQuantize && o.outputs.size() == 1 && !is_float(o.outputs[0])) {
          quantizes.push_back(k);
        } else if (DataInput(o) == static_cast<int>(j) && std::all_of(
                       o.outputs.begin(), o.outputs.end(), is_float)) {
          if (!is_mover[k]) {
            is_mover[k] = true;
            movers.push_back(k);
            island.insert(island.end(), o.outputs.begin(), o.outputs.end());
          }
        } else {
          ok = false;
        }
      }
    }
    for (size_t k : movers) is_mover[k] = false;
    if (!ok || movers.empty()) continue;
    for (int32_t t : island) {
      TfTensor& f = m.tensors[static_cast<size_t>(t)];
      f.type = x.type;
      f.quant = x.quant;
    }
    for (size_t k : quantizes) m.ops[k].via_float = true;
    for (const auto& [k, j] : readers[static_cast<size_t>(dq.outputs[0])]) {
      m.ops[k].inputs[j] = dq.inputs[0];
    }
    m.ops[d].folded = true;
  }
}

Expected<ir::Graph> LowerTfliteModel(const TfliteModel& file) {
  TF_RETURN_IF_ERROR(CheckEdges(file));
  TfliteModel m = file;
  FoldFloatMovement(m);
  Lowering l(m);
  auto entry_of = [](int32_t code) -> const OpEntry* {
    for (const OpEntry& e : kOps) {
      if (e.code == code) return &e;
    }
    return nullptr;
  };
  // An operator the importer does not take is named before any other op is checked (a
  // float op between DEQUANTIZE and QUANTIZE is the problem, not its DEQUANTIZE).
  for (size_t k = 0; k < m.ops.size(); ++k) {
    if (!entry_of(m.ops[k].code)) {
      l.Begin(k);
      // TF's converter writes a dilated convolution as SPACE_TO_BATCH_ND -> CONV_2D ->
      // BATCH_TO_SPACE_ND only when the batch is dynamic (a fixed batch gets one dilated
      // CONV_2D): say so first, it is the fix.
      const int32_t code = m.ops[k].code;
      const std::string hint =
          code == op::kSpaceToBatchNd || code == op::kBatchToSpaceNd
              ? "a dilated convolution saved with a dynamic batch; save the model with a fixed "
                "batch (tf.keras.Input(..., batch_size=1)) and the converter writes a dilated "
                "CONV_2D; "
              : "";
      return l.Fail("unsupported operator (" + hint + "the importer handles " + SupportedList() +
                    ")")
          .WithKind(ErrorKind::kUnsupported);
    }
  }
  for (int32_t t : m.inputs) l.graph().inputs.push_back(l.Tensor(t));
  for (size_t k = 0; k < m.ops.size(); ++k) {
    l.Begin(k);
    const TfOp& o = m.ops[k];
    if (o.folded) continue;
    const OpEntry* entry = entry_of(o.code);
    if (o.version > entry->max_version) {
      return l.Fail("version: " + std::to_string(o.version) +
                    " is newer than this importer knows (" + std::to_string(entry->max_version) +
                    ")");
    }
    if (o.code != op::kUnidirectionalSequenceLstm) {  // a variable is an LSTM's state only
      for (size_t i = 0; i < o.inputs.size(); ++i) {
        if (o.inputs[i] != kNoTensor && m.tensors[static_cast<size_t>(o.inputs[i])].is_variable) {
          return l.Fail("inputs[" + std::to_string(i) + "]: " + TensorLabel(m, o.inputs[i]) +
                        " is a variable tensor (supported as an LSTM's state only)");
        }
      }
    }
    TF_RETURN_IF_ERROR(entry->lower(l));
  }
  for (int32_t t : m.outputs) l.graph().outputs.push_back(l.Tensor(t));
  ir::Graph g = l.Take();
  Status ok = ir::Verify(g);
  if (!ok.ok()) {
    // The checks above should have caught anything the verifier rejects: name the graph.
    return Error(m.file + ": lowered graph: " + Escape(ok.error().message()));
  }
  return g;
}

// ---- Lowering ---------------------------------------------------------------------------

Lowering::Lowering(const TfliteModel& m) : m_(m), ids_(m.tensors.size(), -1) {
  std::string stem = m.file;
  if (const size_t slash = stem.find_last_of('/'); slash != std::string::npos) {
    stem = stem.substr(slash + 1);
  }
  if (const size_t dot = stem.rfind('.'); dot != std::string::npos && dot > 0) {
    stem = stem.substr(0, dot);
  }
  g_.name = stem.empty() ? "tflite" : stem;
  g_.kind = ir::GraphKind::kInt8;
  g_.layout = ir::Layout::kNHWC;
  g_.io_layout = ir::Layout::kNHWC;
  g_.rounding = ir::Rounding::kDouble;  // TFLM's arithmetic: bit-exact with its kernels
  g_.producer = "tflite" + (m.description.empty() ? std::string() : " (" + m.description + ")");
}

void Lowering::Begin(size_t op_index) { index_ = op_index; }

Error Lowering::Fail(const std::string& message) const {
  return Error(m_.file + ": " + OpLabel(m_, index_) + ": " + message);
}

const TfTensor* Lowering::In(size_t i) const {
  if (i >= op().inputs.size() || op().inputs[i] == kNoTensor) return nullptr;
  return &m_.tensors[static_cast<size_t>(op().inputs[i])];
}

const TfTensor* Lowering::Out(size_t i) const {
  if (i >= op().outputs.size()) return nullptr;
  return &m_.tensors[static_cast<size_t>(op().outputs[i])];
}

Status Lowering::ExpectCounts(size_t min_in, size_t max_in, size_t outs) const {
  const size_t n = op().inputs.size();
  if (n < min_in || n > max_in) {
    return Fail("inputs: takes " + std::to_string(min_in) +
                (max_in == min_in ? std::string()
                 : max_in > 1000  ? " or more"
                                  : " to " + std::to_string(max_in)) +
                " inputs, got " + std::to_string(n));
  }
  for (size_t i = 0; i < std::min<size_t>(n, min_in); ++i) {
    if (op().inputs[i] == kNoTensor) {
      return Fail("inputs[" + std::to_string(i) + "]: required input is omitted (-1)");
    }
  }
  if (op().outputs.size() != outs) {
    return Fail("outputs: has " + std::to_string(outs) + " output(s), got " +
                std::to_string(op().outputs.size()));
  }
  return OkStatus();
}

namespace {
constexpr const char* kNoQuantization = ": int8 tensor without quantization parameters";
}  // namespace

Status Lowering::ExpectAct(const TfTensor* t, const std::string& field,
                           bool allow_constant) const {
  if (t->type != static_cast<int8_t>(TfType::kInt8)) {
    return Fail(field + ": type " + TfTypeName(t->type) + ", expected INT8");
  }
  if (!t->quant) return Fail(field + kNoQuantization);
  if (t->quant->per_channel()) {
    return Fail(field + ": per-channel quantization on an activation (expected one scale)");
  }
  if (t->is_constant() && !allow_constant && !t->folded) {
    return Fail(field + ": constant activation operands are not supported");
  }
  return OkStatus();
}

Status Lowering::ExpectRank(const TfTensor* t, const std::string& field, size_t rank) const {
  if (t->shape.size() != rank) {
    return Fail(field + ": shape " + ShapeText(t->shape) + ", expected rank " +
                std::to_string(rank));
  }
  return OkStatus();
}

Status Lowering::ExpectConstant(const TfTensor* t, const std::string& field) const {
  if (!t->is_constant()) return Fail(field + ": must be a constant (have a buffer with data)");
  return OkStatus();
}

Status Lowering::ExpectOptions(Options options_type, bool optional) const {
  const int32_t got = op().options.options_type;
  const int32_t want = static_cast<int32_t>(options_type);
  if (got == want || (optional && got == 0)) return OkStatus();
  return Fail("builtin_options_type: " + std::to_string(got) + ", expected " +
              std::to_string(want) + " for " + op().name());
}

Status Lowering::ExpectActivation(std::initializer_list<TfActivation> allowed) const {
  const int8_t a = op().options.activation;
  for (TfActivation x : allowed) {
    if (static_cast<int8_t>(x) == a) return OkStatus();
  }
  return Fail("fused_activation_function: " + TfActivationName(a) + " is not supported here");
}

Status Lowering::ExpectSameQuant(const TfTensor* a, const std::string& field_a, const TfTensor* b,
                                 const std::string& field_b, const std::string& why) const {
  // Either side may not have been checked by ExpectAct yet (a PACK's output): no
  // quantization is ExpectAct's error, not a read of absent parameters (found by tflite_fuzz).
  if (!a->quant) return Fail(field_a + kNoQuantization);
  if (!b->quant) return Fail(field_b + kNoQuantization);
  if (a->quant->scale[0] == b->quant->scale[0] &&
      a->quant->zero_point[0] == b->quant->zero_point[0]) {
    return OkStatus();
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, " (scale %.9g, zero point %lld vs %.9g, %lld)",
                static_cast<double>(a->quant->scale[0]),
                static_cast<long long>(a->quant->zero_point[0]),
                static_cast<double>(b->quant->scale[0]),
                static_cast<long long>(b->quant->zero_point[0]));
  return Fail(field_a + ": quantization differs from " + field_b + buf + "; " + why);
}

Status Lowering::ExpectOutputShape(const std::vector<int32_t>& want) const {
  if (Out(0)->shape != want) {
    return Fail("outputs[0]: shape " + ShapeText(Out(0)->shape) + ", but the operands give " +
                ShapeText(want));
  }
  return OkStatus();
}

std::string Lowering::UniqueName(const std::string& base) {
  std::string name = base.empty() ? "t" : base;
  for (int k = 1; !names_.insert(name).second; ++k) {
    name = (base.empty() ? "t" : base) + "#" + std::to_string(k);
  }
  return name;
}

ir::TensorId Lowering::Tensor(int32_t index) {
  if (auto w = wrapped_.find(index); w != wrapped_.end()) return Tensor(w->second);
  ir::TensorId& id = ids_[static_cast<size_t>(index)];
  if (id >= 0) return id;
  const TfTensor& t = m_.tensors[static_cast<size_t>(index)];
  ir::Tensor out;
  out.name = UniqueName(t.name.empty() ? "t" + std::to_string(index) : Escape(t.name));
  out.shape = Shape64(t.shape);
  switch (static_cast<TfType>(t.type)) {
    case TfType::kInt8:
      out.dtype = ir::DType::kInt8;
      break;
    case TfType::kInt32:
      out.dtype = ir::DType::kInt32;
      break;
    default:  // float32 (graph edges); the op checks rejected anything else
      out.dtype = ir::DType::kFloat32;
      break;
  }
  if (t.quant && out.dtype != ir::DType::kFloat32) {
    ir::QuantParams q;
    for (float s : t.quant->scale) q.scale.push_back(static_cast<double>(s));
    q.zero_point = t.quant->zero_point;
    if (t.quant->per_channel()) q.axis = t.quant->axis;
    q.qmin = ir::DTypeMin(out.dtype);
    q.qmax = ir::DTypeMax(out.dtype);
    out.quant = std::move(q);
  }
  out.data = t.data;
  id = g_.AddTensor(std::move(out));
  return id;
}

ir::TensorId Lowering::AddInt32(const std::string& name, std::vector<int32_t> values,
                                bool with_zero_quant) {
  ir::Tensor t;
  t.name = UniqueName(name);
  t.shape = {static_cast<int64_t>(values.size())};
  t.dtype = ir::DType::kInt32;
  std::vector<uint8_t> bytes(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t v = static_cast<uint32_t>(values[i]);
    for (int b = 0; b < 4; ++b) bytes[4 * i + b] = static_cast<uint8_t>(v >> (8 * b));
  }
  t.data = std::move(bytes);
  if (with_zero_quant) {
    t.quant = ir::PerTensorQuant(1.0, 0, ir::DTypeMin(ir::DType::kInt32),
                                 ir::DTypeMax(ir::DType::kInt32));
  }
  return g_.AddTensor(std::move(t));
}

ir::TensorId Lowering::AddInt8Table(const std::string& name, const quant::LutTable& table,
                                    const TfTensor& like) {
  ir::Tensor t;
  t.name = UniqueName(name);
  t.shape = {static_cast<int64_t>(table.size())};
  t.dtype = ir::DType::kInt8;
  t.data = std::vector<uint8_t>(table.size());
  std::memcpy(t.data->data(), table.data(), table.size());
  t.quant = ir::PerTensorQuant(like.quant->scale[0], like.quant->zero_point[0], -128, 127);
  return g_.AddTensor(std::move(t));
}

ir::TensorId Lowering::AddActivation(const std::string& name, std::vector<int64_t> shape,
                                     const TfTensor& like) {
  ir::Tensor t;
  t.name = UniqueName(name);
  t.shape = std::move(shape);
  t.dtype = ir::DType::kInt8;
  t.quant = ir::PerTensorQuant(static_cast<double>(like.quant->scale[0]),
                               like.quant->zero_point[0], -128, 127);
  return g_.AddTensor(std::move(t));
}

ir::Op& Lowering::AddOp(ir::OpType type, std::vector<ir::TensorId> inputs,
                        std::vector<ir::TensorId> outputs, ir::Attrs attrs,
                        const std::string& suffix) {
  ir::Op o = ir::MakeOp(type, TfliteOpName(index_, op().name()) + suffix, std::move(inputs),
                        std::move(outputs), std::move(attrs));
  o.source = m_.file + ": op #" + std::to_string(index_);
  return g_.AddOp(std::move(o));
}

void Lowering::AddRequantInputs(ir::Op& o, std::vector<int32_t> multiplier,
                                std::vector<int32_t> shift) {
  const std::string base = o.name;
  o.inputs.push_back(AddInt32(base + ".multiplier", std::move(multiplier)));
  o.inputs.push_back(AddInt32(base + ".shift", std::move(shift)));
}

// ---- helpers ------------------------------------------------------------------------------

constexpr int64_t kInt32Max = 2147483647;

// Output size and padding of one spatial dim as TFLite computes them (ComputeOutSize,
// ComputePaddingHeightWidth), in int64 so that no option value can overflow.
Expected<Dim> SpatialDim(const Lowering& l, const char* axis, int64_t in, int64_t k,
                         int64_t stride, int64_t dilation, int8_t padding) {
  const std::string s(axis);
  if (stride < 1) return l.Fail("stride_" + s + ": " + std::to_string(stride) + ", must be >= 1");
  if (dilation < 1) {
    return l.Fail("dilation_" + s + "_factor: " + std::to_string(dilation) + ", must be >= 1");
  }
  if (padding != 0 && padding != 1) {
    return l.Fail("padding: " + std::to_string(padding) + " is neither SAME (0) nor VALID (1)");
  }
  const int64_t eff = (k - 1) * dilation + 1;  // k, dilation < 2^31: no int64 overflow
  Dim d;
  d.out = padding == 0 ? (in + stride - 1) / stride : (in + stride - eff) / stride;
  if (d.out < 1) {
    return l.Fail("padding: VALID with a " + s + "-extent of " + std::to_string(eff) +
                  " (dilated filter) on an input of " + std::to_string(in) +
                  " leaves no output");
  }
  const int64_t total = std::max<int64_t>((d.out - 1) * stride + eff - in, 0);
  d.before = total / 2;
  d.after = total - d.before;
  if (eff > kInt32Max || total > kInt32Max) {
    return l.Fail("dilation_" + s + "_factor: " + std::to_string(dilation) +
                  " makes the filter extent exceed int32");
  }
  return d;
}


quant::TensorQuant Q(const TfTensor& t) {
  return {t.quant->scale[0], static_cast<int32_t>(t.quant->zero_point[0])};
}

std::vector<float> Scales(const TfTensor& t) { return t.quant->scale; }

Expected<quant::Activation> FusedActivation(int8_t code) {
  switch (static_cast<TfActivation>(code)) {
    case TfActivation::kNone:
      return quant::Activation::kNone;
    case TfActivation::kRelu:
      return quant::Activation::kRelu;
    case TfActivation::kReluN1To1:
      return quant::Activation::kReluN1To1;
    case TfActivation::kRelu6:
      return quant::Activation::kRelu6;
    case TfActivation::kTanh:
    case TfActivation::kSignBit:
      break;
  }
  return Error::Unsupported("fused_activation_function: " + TfActivationName(code) +
                            " is not supported");
}

std::string ShapeText(const std::vector<int32_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::vector<int64_t> Shape64(const std::vector<int32_t>& shape) {
  return std::vector<int64_t>(shape.begin(), shape.end());
}

std::optional<std::vector<int64_t>> Lowering::KnownInts(int32_t index) const {
  if (index < 0 || static_cast<size_t>(index) >= m_.tensors.size()) return std::nullopt;
  if (auto it = known_.find(index); it != known_.end()) return it->second;
  const TfTensor& t = m_.tensors[static_cast<size_t>(index)];
  const bool ints = t.type == static_cast<int8_t>(TfType::kInt32) ||
                    t.type == static_cast<int8_t>(TfType::kInt64);
  if (!ints || !t.is_constant()) return std::nullopt;
  return IntValues(t);
}

void Lowering::SetKnownInts(int32_t index, std::vector<int64_t> values) {
  known_[index] = std::move(values);
}

std::vector<int64_t> IntValues(const TfTensor& t) {
  std::vector<int64_t> v;
  if (!t.data) return v;
  const std::vector<uint8_t>& b = *t.data;
  const size_t size = t.type == static_cast<int8_t>(TfType::kInt64) ? 8 : 4;
  for (size_t i = 0; i + size <= b.size(); i += size) {
    uint64_t u = 0;
    for (size_t k = 0; k < size; ++k) u |= static_cast<uint64_t>(b[i + k]) << (8 * k);
    v.push_back(size == 8 ? static_cast<int64_t>(u)
                          : static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(u))));
  }
  return v;
}

}  // namespace tinyforge::import::tflite::internal
