// The graph-file reader: container, JSON, tensors, top-level keys; ops are in read_ops.cc.
// Each stage checks what the next one relies on (a size before an offset, a shape before
// a byte count), so nothing is used before it has been validated.
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "import/container.h"
#include "import/graph_file.h"
#include "import/read_internal.h"
#include "ir/verifier.h"
#include "support/input_file.h"
#include "support/text.h"

namespace tinyforge::import {
namespace {

using ir::DType;
using ir::Tensor;

Expected<ir::QuantParams> ReadQuant(const Json& j) {
  if (!j.is_object()) return Error("quant: expected an object, got " + JsonTypeName(j));
  ir::QuantParams q;
  TF_ASSIGN_OR_RETURN(const Json* scale, Member(j, "scale", "quant.scale"));
  TF_ASSIGN_OR_RETURN(q.scale, GetDoubleList(*scale, "quant.scale"));
  TF_ASSIGN_OR_RETURN(const Json* zp, Member(j, "zero_point", "quant.zero_point"));
  TF_ASSIGN_OR_RETURN(q.zero_point, GetIntList(*zp, "quant.zero_point"));
  // "axis is null for per-tensor": a missing axis is read as null too.
  auto axis = j.find("axis");
  if (axis != j.end() && !axis->is_null()) {
    TF_ASSIGN_OR_RETURN(q.axis, GetInt(*axis, "quant.axis"));
  }
  TF_ASSIGN_OR_RETURN(const Json* qmin, Member(j, "qmin", "quant.qmin"));
  TF_ASSIGN_OR_RETURN(q.qmin, GetInt(*qmin, "quant.qmin"));
  TF_ASSIGN_OR_RETURN(const Json* qmax, Member(j, "qmax", "quant.qmax"));
  TF_ASSIGN_OR_RETURN(q.qmax, GetInt(*qmax, "quant.qmax"));
  return q;
}

Status ReadTensorBody(const Json& j, std::span<const uint8_t> blob, Tensor& t) {
  TF_ASSIGN_OR_RETURN(const Json* shape, Member(j, "shape", "shape"));
  TF_ASSIGN_OR_RETURN(t.shape, GetIntList(*shape, "shape"));
  const auto numel = ir::CheckedNumElements(t.shape);
  if (!numel) {
    return Error("shape: " + FormatInts(t.shape) + " must have at most " +
                 std::to_string(ir::kMaxRank) + " dims, each >= 1, and at most " +
                 std::to_string(ir::kMaxElements) + " elements");
  }
  TF_ASSIGN_OR_RETURN(const Json* dtype_json, Member(j, "dtype", "dtype"));
  TF_ASSIGN_OR_RETURN(std::string dtype_name, GetString(*dtype_json, "dtype"));
  const auto dtype = ir::ParseDType(dtype_name);
  if (!dtype) {
    return Error("dtype: unknown dtype \"" + dtype_name + "\" (expected float32, int8 or int32)");
  }
  t.dtype = *dtype;
  auto order = j.find("order");  // lowered graphs: a rank-4 activation in PyTorch's order
  if (order != j.end() && !order->is_null()) {
    TF_ASSIGN_OR_RETURN(std::string o, GetString(*order, "order"));
    if (o != "pytorch" || t.shape.size() != 4) {
      return Error("order: expected \"pytorch\", on a rank-4 tensor");
    }
    t.pytorch_order = true;
  }

  auto quant = j.find("quant");
  const bool has_quant = quant != j.end() && !quant->is_null();
  if (has_quant && !ir::IsQuantized(t.dtype)) {
    return Error("quant: not allowed on float32 tensors");
  }
  // int32 tensors without quant hold raw integers (multipliers, shifts of lowered graphs).
  if (!has_quant && t.dtype == DType::kInt8) {
    return Error("quant: required for " + dtype_name + " tensors");
  }
  if (has_quant) {
    TF_ASSIGN_OR_RETURN(t.quant, ReadQuant(*quant));
    TF_RETURN_IF_ERROR(ir::ValidateQuant(*t.quant, t.dtype, t.shape));
  }

  auto data = j.find("data");
  if (data == j.end() || data->is_null()) return OkStatus();
  if (!data->is_object()) return Error("data: expected an object, got " + JsonTypeName(*data));
  TF_ASSIGN_OR_RETURN(const Json* off_json, Member(*data, "offset", "data.offset"));
  TF_ASSIGN_OR_RETURN(uint64_t offset, GetUint(*off_json, "data.offset"));
  TF_ASSIGN_OR_RETURN(const Json* size_json, Member(*data, "size", "data.size"));
  TF_ASSIGN_OR_RETURN(uint64_t size, GetUint(*size_json, "data.size"));
  const uint64_t want = static_cast<uint64_t>(*numel * ir::DTypeSize(t.dtype));
  if (size != want) {
    return Error("data.size: " + std::to_string(size) + " bytes, expected " + std::to_string(want) +
                 " (" + std::to_string(*numel) + " x " + dtype_name + ")");
  }
  if (offset > blob.size() || size > blob.size() - offset) {
    return Error("data: bytes [" + std::to_string(offset) + ", " +
                 (offset > UINT64_MAX - size ? std::string("...") : std::to_string(offset + size)) +
                 ") extend past the end of the " + std::to_string(blob.size()) + "-byte blob");
  }
  t.data.emplace(blob.begin() + static_cast<std::ptrdiff_t>(offset),
                 blob.begin() + static_cast<std::ptrdiff_t>(offset + size));
  return OkStatus();
}

Expected<Tensor> ReadTensor(const Json& j, size_t index, std::span<const uint8_t> blob) {
  const std::string num = "(#" + std::to_string(index) + ")";
  const std::string anonymous = "tensor #" + std::to_string(index);
  if (!j.is_object()) return Error(anonymous + ": expected an object, got " + JsonTypeName(j));
  Tensor t;
  auto name = Member(j, "name", "name");
  TF_RETURN_IF_ERROR_PREFIX(name, anonymous);
  auto name_str = GetString(**name, "name");
  TF_RETURN_IF_ERROR_PREFIX(name_str, anonymous);
  if (name_str->empty()) return Error(anonymous + ": name: empty");
  t.name = *name_str;
  Status s = ReadTensorBody(j, blob, t);
  TF_RETURN_IF_ERROR_PREFIX(s, "tensor '" + t.name + "' " + num);
  return t;
}

Status ReadDocument(const Json& doc, std::span<const uint8_t> blob, ir::Graph& g) {
  auto top = [&](Status s) { return s.ok() ? s : Status(s.error().WithPrefix("graph")); };
  if (!doc.is_object()) {
    return Error("graph: the JSON document is " + JsonTypeName(doc) + ", expected an object");
  }
  TF_RETURN_IF_ERROR(top([&]() -> Status {
    TF_ASSIGN_OR_RETURN(const Json* format, Member(doc, "format", "format"));
    TF_ASSIGN_OR_RETURN(std::string f, GetString(*format, "format"));
    if (f != "tinyforge-graph") return Error("format: \"" + f + "\" is not \"tinyforge-graph\"");
    TF_ASSIGN_OR_RETURN(const Json* version, Member(doc, "version", "version"));
    TF_ASSIGN_OR_RETURN(int64_t v, GetInt(*version, "version"));
    if (v != kFormatVersion) {
      return Error("version: " + std::to_string(v) + " does not match the container version " +
                   std::to_string(kFormatVersion));
    }
    TF_ASSIGN_OR_RETURN(const Json* name, Member(doc, "name", "name"));
    TF_ASSIGN_OR_RETURN(g.name, GetString(*name, "name"));
    TF_ASSIGN_OR_RETURN(const Json* kind, Member(doc, "kind", "kind"));
    TF_ASSIGN_OR_RETURN(std::string k, GetString(*kind, "kind"));
    const auto parsed = ir::ParseGraphKind(k);
    if (!parsed) return Error("kind: \"" + k + "\" is not \"float\", \"qdq\" or \"int8\"");
    g.kind = *parsed;
    for (auto [key, field] :
         {std::pair{"layout", &g.layout}, std::pair{"io_layout", &g.io_layout}}) {
      auto it = doc.find(key);
      if (it == doc.end() || it->is_null()) continue;
      TF_ASSIGN_OR_RETURN(std::string name, GetString(*it, key));
      const auto layout = ir::ParseLayout(name);
      if (!layout) {
        return Error(std::string(key) + ": \"" + name + "\" is not \"NCHW\" or \"NHWC\"");
      }
      *field = *layout;
    }
    if (auto it = doc.find("rounding"); it != doc.end() && !it->is_null()) {
      TF_ASSIGN_OR_RETURN(std::string name, GetString(*it, "rounding"));
      const auto rounding = ir::ParseRounding(name);
      if (!rounding) return Error("rounding: \"" + name + "\" is not \"single\" or \"double\"");
      g.rounding = *rounding;
    }
    auto producer = doc.find("producer");
    if (producer != doc.end() && !producer->is_null()) {
      TF_ASSIGN_OR_RETURN(g.producer, GetString(*producer, "producer"));
    }
    for (const char* key : {"tensors", "ops"}) {
      TF_ASSIGN_OR_RETURN(const Json* list, Member(doc, key, key));
      if (!list->is_array()) {
        return Error(std::string(key) + ": expected a list, got " + JsonTypeName(*list));
      }
    }
    return OkStatus();
  }()));

  const Json& tensors = doc["tensors"];
  g.tensors.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    TF_ASSIGN_OR_RETURN(Tensor t, ReadTensor(tensors[i], i, blob));
    g.tensors.push_back(std::move(t));
  }
  const Json& ops = doc["ops"];
  g.ops.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    TF_ASSIGN_OR_RETURN(ir::Op op, ReadOp(ops[i], i, g.tensors.size()));
    g.ops.push_back(std::move(op));
  }
  return top([&]() -> Status {
    TF_ASSIGN_OR_RETURN(const Json* inputs, Member(doc, "inputs", "inputs"));
    TF_ASSIGN_OR_RETURN(g.inputs, ReadTensorIds(*inputs, "inputs", g.tensors.size()));
    TF_ASSIGN_OR_RETURN(const Json* outputs, Member(doc, "outputs", "outputs"));
    TF_ASSIGN_OR_RETURN(g.outputs, ReadTensorIds(*outputs, "outputs", g.tensors.size()));
    auto state = doc.find("state");
    if (state != doc.end() && !state->is_null()) {
      if (!state->is_array()) return Error("state: expected a list of [input, output] pairs");
      for (size_t k = 0; k < state->size(); ++k) {
        const Json& pair = (*state)[k];
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
            !pair[1].is_number_integer()) {
          return Error("state[" + std::to_string(k) +
                       "]: expected [input index, output index]");
        }
        const int64_t i = pair[0].get<int64_t>(), o = pair[1].get<int64_t>();
        if (i < 0 || o < 0 || i > INT32_MAX || o > INT32_MAX) {
          return Error("state[" + std::to_string(k) + "]: index out of range");
        }
        g.state.emplace_back(static_cast<int>(i), static_cast<int>(o));
      }
    }
    return OkStatus();
  }());
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; the id helps nobody.
std::string StripJsonExceptionId(const char* what) {
  std::string s = what;
  if (!s.empty() && s[0] == '[') {
    const size_t close = s.find("] ");
    if (close != std::string::npos) s = s.substr(close + 2);
  }
  return s;
}

}  // namespace

Expected<ir::Graph> ParseGraphFile(std::span<const uint8_t> bytes, std::string_view file_label) {
  const std::string file(file_label);
  try {
    auto container = SplitContainer(bytes);
    TF_RETURN_IF_ERROR_PREFIX(container, file);
    Json doc;
    try {
      doc = Json::parse(MarkNonFiniteTokens(container->json));
    } catch (const Json::parse_error& e) {
      return Error(file + ": json: " + StripJsonExceptionId(e.what()));
    }
    ir::Graph g;
    Status s = ReadDocument(doc, container->blob, g);
    TF_RETURN_IF_ERROR_PREFIX(s, file);
    s = ir::Verify(g);
    TF_RETURN_IF_ERROR_PREFIX(s, file);
    return g;
  } catch (const std::bad_alloc&) {
    return Error(file + ": out of memory while reading the graph file");
  } catch (const std::exception& e) {
    // Every check above is explicit; this is a last line of defence, not a code path.
    return Error(file + ": internal error while reading: " + StripJsonExceptionId(e.what()));
  }
}

Expected<ir::Graph> ReadGraphFile(const std::string& path) {
  try {
    TF_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                        ReadInputFile(path, {"graph file", kMaxGraphFileBytes, 0,
                                             std::string_view(kMagic, sizeof kMagic)}));
    return ParseGraphFile(bytes, path);
  } catch (const std::exception& e) {
    return Error(path + ": cannot read file: " + e.what());
  }
}

}  // namespace tinyforge::import
