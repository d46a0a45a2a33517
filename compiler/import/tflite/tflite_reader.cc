// .tflite bytes -> TfliteModel: the flatbuffers Verifier first (every offset, vector and
// string the generated accessors can reach is inside the buffer), then the checks the
// Verifier cannot make (indices between tables, sizes against shapes, quantization).
// Only accessors the Verifier covered are called; nothing is read before it has run.
#include <cmath>
#include <cstring>
#include <limits>

#include "import/tflite/tflite_model.h"
#include "import/tflite/tflite_options.h"
#include "schema_subset_generated.h"

namespace tinyforge::import::tflite {
namespace {

constexpr uint32_t kSchemaVersion = 3;  // TFLITE_SCHEMA_VERSION
constexpr int kMaxRank = 6;             // ir::kMaxRank
constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

// The elements of a verified vector. Copied bytewise: the Verifier checks a vector's
// 4-byte length prefix alignment only, so 8-byte elements (zero_point) may be misaligned,
// and reading them through the accessors would be undefined behaviour.
template <class T>
std::vector<T> Vec(const flatbuffers::Vector<T>* v) {
  std::vector<T> out(v ? v->size() : 0);
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));  // little-endian
  return out;
}

std::string Ints(const std::vector<int32_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string FloatText(float f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
  return buf;
}

class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, std::string_view file) : bytes_(bytes) {
    m_.file = std::string(file);
  }

  Expected<TfliteModel> Read() {
    const fb::Model* model = fb::GetModel(bytes_.data());
    m_.schema_version = model->version();
    if (m_.schema_version != kSchemaVersion) {
      return Fail("model: version: schema version " + std::to_string(m_.schema_version) +
                  ", expected " + std::to_string(kSchemaVersion));
    }
    m_.description = Str(model->description());
    TF_RETURN_IF_ERROR(ReadCodes(model->operator_codes()));
    const auto* subgraphs = model->subgraphs();
    const size_t n_sub = subgraphs ? subgraphs->size() : 0;
    const bool loops = n_sub > 1 && HasWhile(subgraphs->Get(0));
    if (n_sub != 1 && !loops) {
      if (n_sub > 1) TF_RETURN_IF_ERROR(CheckControlFlow(subgraphs->Get(0), n_sub));
      return Fail("model: subgraphs: " + std::to_string(n_sub) +
                  " subgraphs, the importer handles exactly 1 (no control flow)");
    }
    buffers_ = model->buffers();
    // WHILE loops (Keras recurrent layers): every subgraph read with the same checks, the
    // loops then unrolled into the main one (tflite_unroll.cc).
    std::vector<TfliteModel> subs(1);
    const std::string file = m_.file;
    for (size_t k = 1; loops && k < n_sub; ++k) {
      m_ = TfliteModel();
      m_.file = file + ": subgraph " + std::to_string(k);
      TF_RETURN_IF_ERROR(ReadSubgraph(subgraphs->Get(static_cast<flatbuffers::uoffset_t>(k))));
      subs.push_back(std::move(m_));
    }
    m_ = TfliteModel();
    m_.file = file;
    m_.schema_version = model->version();
    m_.description = Str(model->description());
    TF_RETURN_IF_ERROR(ReadSubgraph(subgraphs->Get(0)));
    if (loops) TF_RETURN_IF_ERROR(UnrollWhileLoops(m_, subs));
    TF_RETURN_IF_ERROR(CheckZeroSized());
    TF_RETURN_IF_ERROR(CheckOrder());
    return std::move(m_);
  }

 private:
  struct Code {
    int32_t code = 0;
    std::string custom;
    int32_t version = 1;
  };

  Error Fail(const std::string& message) const { return Error(m_.file + ": " + message); }

  Status ReadCodes(const flatbuffers::Vector<flatbuffers::Offset<fb::OperatorCode>>* codes) {
    const size_t n = codes ? codes->size() : 0;
    for (size_t k = 0; k < n; ++k) {
      const std::string where = "operator_codes[" + std::to_string(k) + "]: ";
      const fb::OperatorCode* c = codes->Get(static_cast<flatbuffers::uoffset_t>(k));
      if (!c) return Fail(where + "missing");
      const int32_t dep = c->deprecated_builtin_code();
      const int32_t ext = c->builtin_code();
      if (dep < 0) {
        return Fail(where + "deprecated_builtin_code: " + std::to_string(dep) + " is negative");
      }
      if (ext < 0) return Fail(where + "builtin_code: " + std::to_string(ext) + " is negative");
      // TFLite's GetBuiltinCode: the larger of the two. Files from before schema 3a leave
      // builtin_code at 0; newer files write min(code, 127) into the deprecated field.
      const bool agree = ext == 0 || dep == 0 || dep == ext ||
                         (ext >= op::kPlaceholderForGreaterOpCodes &&
                          dep == op::kPlaceholderForGreaterOpCodes);
      if (!agree) {
        return Fail(where + "builtin_code " + std::to_string(ext) + " (" + BuiltinOpName(ext) +
                    ") and deprecated_builtin_code " + std::to_string(dep) + " (" +
                    BuiltinOpName(dep) + ") disagree");
      }
      Code out;
      out.code = std::max(dep, ext);
      out.custom = Str(c->custom_code());
      out.version = c->version();
      if (out.version < 1) {
        return Fail(where + "version: " + std::to_string(out.version) + " (" +
                    BuiltinOpName(out.code) + "), must be >= 1");
      }
      codes_.push_back(std::move(out));
    }
    return OkStatus();
  }

  Status ReadSubgraph(const fb::SubGraph* sg) {
    if (!sg) return Fail("model: subgraph: missing");
    m_.subgraph_name = Str(sg->name());
    TF_RETURN_IF_ERROR(ReadTensors(sg->tensors()));
    TF_RETURN_IF_ERROR(ReadIo(sg));
    return ReadOps(sg->operators());
  }

  bool HasWhile(const fb::SubGraph* sg) const {
    const auto* ops = sg ? sg->operators() : nullptr;
    for (size_t k = 0; ops && k < ops->size(); ++k) {
      const fb::Operator* o = ops->Get(static_cast<flatbuffers::uoffset_t>(k));
      if (o && o->opcode_index() < codes_.size() && codes_[o->opcode_index()].code == op::kWhile) {
        return true;
      }
    }
    return false;
  }

  // A model with several subgraphs and no WHILE (which is unrolled): its first control-flow
  // op, named.
  Status CheckControlFlow(const fb::SubGraph* sg, size_t n_sub) const {
    const auto* ops = sg ? sg->operators() : nullptr;
    const size_t n = ops ? ops->size() : 0;
    for (size_t k = 0; k < n; ++k) {
      const fb::Operator* o = ops->Get(static_cast<flatbuffers::uoffset_t>(k));
      if (!o || o->opcode_index() >= codes_.size()) continue;  // reported later if reached
      const int32_t code = codes_[o->opcode_index()].code;
      if (code == op::kIf || code == op::kCall || code == op::kCallOnce) {
        return Fail("op #" + std::to_string(k) + " (" + BuiltinOpName(code) +
                    "): control flow (" + std::to_string(n_sub) +
                    " subgraphs) is not supported (only WHILE loops with a static trip count, "
                    "which are unrolled)");
      }
    }
    return OkStatus();
  }

  // The bytes of buffer `index`: the flatbuffer vector, or (schema 3c) a range of the file
  // after the flatbuffer. Empty span = no data.
  Expected<std::span<const uint8_t>> BufferBytes(uint32_t index, const std::string& where) {
    const size_t n = buffers_ ? buffers_->size() : 0;
    if (index >= n) {
      return Fail(where + "buffer: index " + std::to_string(index) +
                  " out of range (the model has " + std::to_string(n) + " buffers)");
    }
    const fb::Buffer* b = buffers_->Get(index);
    if (!b) return std::span<const uint8_t>();
    const auto* data = b->data();
    const uint64_t offset = b->offset();
    const uint64_t size = b->size();
    if (offset > 1) {
      if (data && data->size() > 0) {
        return Fail(where + "buffer " + std::to_string(index) +
                    ": holds both inline data and an external offset");
      }
      if (offset > bytes_.size() || size > bytes_.size() - offset) {
        return Fail(where + "buffer " + std::to_string(index) + ": external data [" +
                    std::to_string(offset) + ", +" + std::to_string(size) +
                    ") lies outside the file (" + std::to_string(bytes_.size()) + " bytes)");
      }
      return bytes_.subspan(static_cast<size_t>(offset), static_cast<size_t>(size));
    }
    if (!data) return std::span<const uint8_t>();
    return std::span<const uint8_t>(data->data(), data->size());
  }

  Status ReadQuant(const fb::QuantizationParameters* q, TfTensor& t, const std::string& where) {
    if (!q) return OkStatus();
    if (q->details_type() != fb::QuantizationDetails::NONE) {
      return Fail(where + "quantization.details: custom quantization is not supported");
    }
    std::vector<float> scale = Vec(q->scale());
    std::vector<int64_t> zp = Vec(q->zero_point());
    if (scale.empty()) {
      if (!zp.empty()) {
        return Fail(where + "quantization.zero_point: " + std::to_string(zp.size()) +
                    " zero points but no scale");
      }
      return OkStatus();  // e.g. the int32 shape operand of RESHAPE
    }
    if (zp.size() != scale.size()) {
      return Fail(where + "quantization.zero_point: " + std::to_string(zp.size()) +
                  " zero points for " + std::to_string(scale.size()) + " scales");
    }
    for (size_t i = 0; i < scale.size(); ++i) {
      if (!std::isfinite(scale[i]) || !(scale[i] > 0.0f)) {
        return Fail(where + "quantization.scale[" + std::to_string(i) +
                    "]: must be finite and > 0, got " + FloatText(scale[i]));
      }
      // The IR's rule (ir/quant.h): quantization divides by the scale in float32.
      if (!std::isfinite(static_cast<float>(1.0 / static_cast<double>(scale[i])))) {
        return Fail(where + "quantization.scale[" + std::to_string(i) + "]: " +
                    FloatText(scale[i]) + " is too small (its reciprocal overflows float32)");
      }
    }
    // Zero points must be values of the tensor's type (int8 activations and weights,
    // int32 biases; int16/int64 are rejected later if an op uses them).
    int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    if (t.type == static_cast<int8_t>(TfType::kInt8)) lo = -128, hi = 127;
    if (t.type == static_cast<int8_t>(TfType::kInt16)) lo = -32768, hi = 32767;
    if (t.type == static_cast<int8_t>(TfType::kInt32)) lo = INT32_MIN, hi = INT32_MAX;
    for (size_t i = 0; i < zp.size(); ++i) {
      if (zp[i] < lo || zp[i] > hi) {
        return Fail(where + "quantization.zero_point[" + std::to_string(i) + "]: " +
                    std::to_string(zp[i]) + " is outside " + TfTypeName(t.type) + " [" +
                    std::to_string(lo) + ", " + std::to_string(hi) + "]");
      }
    }
    TfQuant out;
    out.axis = q->quantized_dimension();
    if (scale.size() > 1) {
      const int32_t rank = static_cast<int32_t>(t.shape.size());
      if (out.axis < 0 || out.axis >= rank) {
        return Fail(where + "quantization.quantized_dimension: " + std::to_string(out.axis) +
                    " is out of range for rank " + std::to_string(rank));
      }
      if (t.shape[static_cast<size_t>(out.axis)] != static_cast<int32_t>(scale.size())) {
        return Fail(where + "quantization.scale: " + std::to_string(scale.size()) +
                    " per-channel scales, but dim " + std::to_string(out.axis) + " of shape " +
                    Ints(t.shape) + " is " +
                    std::to_string(t.shape[static_cast<size_t>(out.axis)]));
      }
    }
    out.scale = std::move(scale);
    out.zero_point = std::move(zp);
    t.quant = std::move(out);
    return OkStatus();
  }

  Status ReadTensors(const flatbuffers::Vector<flatbuffers::Offset<fb::Tensor>>* tensors) {
    const size_t n = tensors ? tensors->size() : 0;
    m_.tensors.reserve(n);
    for (size_t k = 0; k < n; ++k) {
      const fb::Tensor* ft = tensors->Get(static_cast<flatbuffers::uoffset_t>(k));
      TfTensor t;
      if (ft) t.name = Str(ft->name());
      m_.tensors.push_back(t);  // so that TensorLabel can name it in the messages below
      const std::string where = TensorLabel(m_, static_cast<int32_t>(k)) + ": ";
      if (!ft) return Fail(where + "missing");
      t.shape = Vec(ft->shape());
      t.type = static_cast<int8_t>(ft->type());
      if (t.shape.size() > static_cast<size_t>(kMaxRank)) {
        return Fail(where + "shape: rank " + std::to_string(t.shape.size()) + " exceeds " +
                    std::to_string(kMaxRank));
      }
      int64_t numel = 1;
      for (size_t d = 0; d < t.shape.size(); ++d) {
        if (t.shape[d] == 0) {
          t.zero_sized = true;  // an error if an op or the graph uses it (CheckZeroSized)
          numel = 0;
          continue;
        }
        if (t.shape[d] < 1) {
          return Fail(where + "shape: dim " + std::to_string(d) + " of " + Ints(t.shape) +
                      " is " + std::to_string(t.shape[d]) + ", must be >= 1");
        }
        numel *= t.shape[d];
        if (numel > kMaxElements) {
          return Fail(where + "shape: " + Ints(t.shape) + " has more than 2^31-1 elements");
        }
      }
      if (ft->sparsity()) return Fail(where + "sparsity: sparse tensors are not supported");
      t.is_variable = ft->is_variable();
      TF_ASSIGN_OR_RETURN(std::span<const uint8_t> data, BufferBytes(ft->buffer(), where));
      if (!data.empty()) {
        const int64_t elem = TfTypeSize(t.type);
        if (elem == 0) {
          return Fail(where + "buffer " + std::to_string(ft->buffer()) +
                      ": constant data of type " + TfTypeName(t.type) + " is not supported");
        }
        const int64_t want = numel * elem;
        if (static_cast<int64_t>(data.size()) != want) {
          return Fail(where + "buffer " + std::to_string(ft->buffer()) + ": holds " +
                      std::to_string(data.size()) + " bytes, " + TfTypeName(t.type) +
                      Ints(t.shape) + " needs " + std::to_string(want));
        }
        t.data = std::vector<uint8_t>(data.begin(), data.end());
      }
      TF_RETURN_IF_ERROR(ReadQuant(ft->quantization(), t, where));
      m_.tensors.back() = std::move(t);
    }
    return OkStatus();
  }

  Status CheckIndex(int32_t index, const std::string& where) const {
    if (index < 0 || static_cast<size_t>(index) >= m_.tensors.size()) {
      return Fail(where + "tensor index " + std::to_string(index) + " out of range (" +
                  std::to_string(m_.tensors.size()) + " tensors)");
    }
    return OkStatus();
  }

  Status ReadIo(const fb::SubGraph* sg) {
    m_.inputs = Vec(sg->inputs());
    m_.outputs = Vec(sg->outputs());
    for (size_t i = 0; i < m_.inputs.size(); ++i) {
      const std::string where = "subgraph: inputs[" + std::to_string(i) + "]: ";
      TF_RETURN_IF_ERROR(CheckIndex(m_.inputs[i], where));
      if (m_.tensors[static_cast<size_t>(m_.inputs[i])].is_constant()) {
        return Fail(where + TensorLabel(m_, m_.inputs[i]) + " is a constant");
      }
      for (size_t j = 0; j < i; ++j) {
        if (m_.inputs[j] == m_.inputs[i]) {
          return Fail(where + TensorLabel(m_, m_.inputs[i]) + " is listed twice");
        }
      }
    }
    if (m_.outputs.empty()) return Fail("subgraph: outputs: the model has no outputs");
    for (size_t i = 0; i < m_.outputs.size(); ++i) {
      const std::string where = "subgraph: outputs[" + std::to_string(i) + "]: ";
      TF_RETURN_IF_ERROR(CheckIndex(m_.outputs[i], where));
      for (size_t j = 0; j < i; ++j) {
        if (m_.outputs[j] == m_.outputs[i]) {
          return Fail(where + TensorLabel(m_, m_.outputs[i]) + " is listed twice");
        }
      }
    }
    return OkStatus();
  }

  Status ReadOps(const flatbuffers::Vector<flatbuffers::Offset<fb::Operator>>* ops) {
    const size_t n = ops ? ops->size() : 0;
    m_.ops.reserve(n);
    for (size_t k = 0; k < n; ++k) {
      const fb::Operator* o = ops->Get(static_cast<flatbuffers::uoffset_t>(k));
      const std::string bare = "op #" + std::to_string(k) + ": ";
      if (!o) return Fail(bare + "missing");
      if (o->opcode_index() >= codes_.size()) {
        return Fail(bare + "opcode_index: " + std::to_string(o->opcode_index()) +
                    " out of range (" + std::to_string(codes_.size()) + " operator codes)");
      }
      const Code& code = codes_[o->opcode_index()];
      TfOp op;
      op.code = code.code;
      op.custom_code = code.custom;
      op.version = code.version;
      op.inputs = Vec(o->inputs());
      op.outputs = Vec(o->outputs());
      op.intermediates = Vec(o->intermediates());
      m_.ops.push_back(op);
      const std::string where = OpLabel(m_, k) + ": ";
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        if (op.inputs[i] == kNoTensor) continue;
        TF_RETURN_IF_ERROR(CheckIndex(op.inputs[i], where + "inputs[" + std::to_string(i) + "]: "));
      }
      for (size_t i = 0; i < op.outputs.size(); ++i) {
        TF_RETURN_IF_ERROR(
            CheckIndex(op.outputs[i], where + "outputs[" + std::to_string(i) + "]: "));
      }
      for (size_t i = 0; i < op.intermediates.size(); ++i) {
        TF_RETURN_IF_ERROR(CheckIndex(op.intermediates[i],
                                      where + "intermediates[" + std::to_string(i) + "]: "));
      }
      if (!DecodeOptions(o, op.options)) {
        return Fail(where + "builtin_options: type " + std::to_string(op.options.options_type) +
                    " with no options table");
      }
      m_.ops.back() = std::move(op);
    }
    return OkStatus();
  }

  // A tensor with a 0 dim may only be an op's intermediate (TFLite's unquantized LSTM
  // intermediates): no graph input or output, no op input or output.
  Status CheckZeroSized() const {
    auto check = [&](int32_t t) -> Status {
      if (t == kNoTensor || !m_.tensors[static_cast<size_t>(t)].zero_sized) return OkStatus();
      const std::vector<int32_t>& shape = m_.tensors[static_cast<size_t>(t)].shape;
      size_t d = 0;
      while (shape[d] != 0) ++d;
      return Fail(TensorLabel(m_, t) + ": shape: dim " + std::to_string(d) + " of " +
                  Ints(shape) + " is 0, must be >= 1");
    };
    for (int32_t t : m_.inputs) TF_RETURN_IF_ERROR(check(t));
    for (int32_t t : m_.outputs) TF_RETURN_IF_ERROR(check(t));
    for (const TfOp& op : m_.ops) {
      for (int32_t t : op.inputs) TF_RETURN_IF_ERROR(check(t));
      for (int32_t t : op.outputs) TF_RETURN_IF_ERROR(check(t));
    }
    return OkStatus();
  }

  // Execution order: every op input is a graph input, a constant or an earlier op's output;
  // every tensor is produced once; no op writes a constant or a graph input.
  Status CheckOrder() const {
    enum : uint8_t { kUndefined, kDefined };
    std::vector<uint8_t> state(m_.tensors.size(), kUndefined);
    for (int32_t t : m_.inputs) state[static_cast<size_t>(t)] = kDefined;
    for (size_t t = 0; t < m_.tensors.size(); ++t) {
      // A variable (an LSTM's state) holds its value before the first op.
      if (m_.tensors[t].is_constant() || m_.tensors[t].is_variable) state[t] = kDefined;
    }
    for (size_t k = 0; k < m_.ops.size(); ++k) {
      const TfOp& op = m_.ops[k];
      const std::string where = OpLabel(m_, k) + ": ";
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        const int32_t t = op.inputs[i];
        if (t != kNoTensor && state[static_cast<size_t>(t)] != kDefined) {
          return Fail(where + "inputs[" + std::to_string(i) + "]: " + TensorLabel(m_, t) +
                      " is read before any op writes it (ops must be in execution order)");
        }
      }
      for (size_t i = 0; i < op.outputs.size(); ++i) {
        const int32_t t = op.outputs[i];
        if (state[static_cast<size_t>(t)] == kDefined) {
          return Fail(where + "outputs[" + std::to_string(i) + "]: " + TensorLabel(m_, t) +
                      " is already defined (a constant, a graph input or another op's output)");
        }
        state[static_cast<size_t>(t)] = kDefined;
      }
    }
    for (size_t i = 0; i < m_.outputs.size(); ++i) {
      if (state[static_cast<size_t>(m_.outputs[i])] != kDefined) {
        return Fail("subgraph: outputs[" + std::to_string(i) + "]: " +
                    TensorLabel(m_, m_.outputs[i]) + " is never written");
      }
    }
    return OkStatus();
  }

  std::span<const uint8_t> bytes_;
  const flatbuffers::Vector<flatbuffers::Offset<fb::Buffer>>* buffers_ = nullptr;
  std::vector<Code> codes_;
  TfliteModel m_;
};

}  // namespace

int64_t TfTensor::num_elements() const {
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  return n;
}

bool LooksLikeTflite(std::span<const uint8_t> bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, fb::ModelIdentifier(), 4) == 0;
}

Expected<TfliteModel> ReadTfliteModel(std::span<const uint8_t> bytes, std::string_view file) {
  const std::string f(file);
  if (bytes.size() < 8) {
    return Error(f + ": flatbuffer: truncated: " + std::to_string(bytes.size()) +
                 " bytes, a TFLite model has at least 8");
  }
  if (!LooksLikeTflite(bytes)) {
    return Error(f + ": flatbuffer: not a TFLite model (no 'TFL3' file identifier at byte 4)");
  }
  if (bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return Error(f + ": flatbuffer: " + std::to_string(bytes.size()) +
                 " bytes exceeds the flatbuffers limit of 2 GiB");
  }
  // Accessors read scalars in place: keep the buffer aligned as the Verifier assumes.
  std::vector<uint8_t> copy;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % 16 != 0) {
    copy.assign(bytes.begin(), bytes.end());
    bytes = copy;
  }
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!fb::VerifyModelBuffer(verifier)) {
    return Error(f + ": flatbuffer: invalid structure: an offset, length, string or table " +
                 "lies outside the " + std::to_string(bytes.size()) +
                 "-byte file or is misaligned (rejected by the flatbuffers Verifier)");
  }
  return Reader(bytes, file).Read();
}

}  // namespace tinyforge::import::tflite
