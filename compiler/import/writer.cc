// The graph-file writer: the inverse of the reader, used by tests to make files (valid or,
// with verify off, deliberately broken) and by the compiler to save rewritten graphs.
#include <cmath>
#include <fstream>

#include "import/graph_file.h"
#include "import/json_util.h"
#include "ir/verifier.h"

namespace tinyforge::import {
namespace {

Json Number(double v) { return std::isfinite(v) ? Json(v) : Json(NonFiniteMarker(v)); }

struct AttrWriter {
  Json* obj;
  void operator()(const char* name, int64_t v) { (*obj)[name] = v; }
  void operator()(const char* name, double v) { (*obj)[name] = Number(v); }
  void operator()(const char* name, bool v) { (*obj)[name] = v; }
  void operator()(const char* name, const std::vector<int64_t>& v) { (*obj)[name] = v; }
  void operator()(const char* name, ir::Layout v) { (*obj)[name] = std::string(ir::LayoutName(v)); }
  void operator()(const char* name, ir::FloatFn v) { (*obj)[name] = std::string(ir::FloatFnName(v)); }
  template <size_t N>
  void operator()(const char* name, const std::array<int64_t, N>& v) {
    (*obj)[name] = Json(std::vector<int64_t>(v.begin(), v.end()));
  }
};

Json TensorJson(const ir::Tensor& t, std::vector<uint8_t>& blob) {
  Json j = Json::object();
  j["name"] = t.name;
  j["shape"] = t.shape;
  j["dtype"] = std::string(ir::DTypeName(t.dtype));
  // (Rank 4 only: a pass after the layout pass may reshape a tensor it marked.)
  if (t.pytorch_order && t.shape.size() == 4) j["order"] = "pytorch";
  if (t.quant) {
    Json q = Json::object();
    Json scales = Json::array();
    for (double s : t.quant->scale) scales.push_back(Number(s));
    q["scale"] = scales;
    q["zero_point"] = t.quant->zero_point;
    q["axis"] = t.quant->axis ? Json(*t.quant->axis) : Json(nullptr);
    q["qmin"] = t.quant->qmin;
    q["qmax"] = t.quant->qmax;
    j["quant"] = q;
  }
  if (t.data) {
    const size_t offset =
        (blob.size() + kConstantAlignment - 1) / kConstantAlignment * kConstantAlignment;
    blob.resize(offset, 0);
    blob.insert(blob.end(), t.data->begin(), t.data->end());
    j["data"] = {{"offset", offset}, {"size", t.data->size()}};
  }
  return j;
}

}  // namespace

Expected<GraphFileParts> SerializeGraph(const ir::Graph& g, const WriteOptions& options) {
  if (options.verify) {
    Status s = ir::Verify(g);
    TF_RETURN_IF_ERROR_PREFIX(s, "refusing to write an invalid graph");
  }
  try {
    GraphFileParts parts;
    Json doc = Json::object();
    doc["format"] = "tinyforge-graph";
    doc["version"] = kFormatVersion;
    doc["producer"] = options.producer.empty() ? g.producer : options.producer;
    doc["name"] = g.name;
    doc["kind"] = std::string(ir::GraphKindName(g.kind));
    // Format v1 additions, written only when they differ from the default (NCHW).
    if (g.layout != ir::Layout::kNCHW || g.io_layout != ir::Layout::kNCHW) {
      doc["layout"] = std::string(ir::LayoutName(g.layout));
      doc["io_layout"] = std::string(ir::LayoutName(g.io_layout));
    }
    if (g.rounding != ir::Rounding::kSingle) {
      doc["rounding"] = std::string(ir::RoundingName(g.rounding));
    }
    Json tensors = Json::array();
    for (const ir::Tensor& t : g.tensors) tensors.push_back(TensorJson(t, parts.blob));
    doc["tensors"] = std::move(tensors);
    Json ops = Json::array();
    for (const ir::Op& op : g.ops) {
      Json j = Json::object();
      j["type"] = std::string(ir::OpTypeName(op.type));
      j["name"] = op.name;
      j["inputs"] = op.inputs;
      j["outputs"] = op.outputs;
      Json attrs = Json::object();
      std::visit([&](const auto& a) { a.Fields(a, AttrWriter{&attrs}); }, op.attrs);
      j["attrs"] = std::move(attrs);
      if (!op.source.empty()) j["source"] = op.source;
      ops.push_back(std::move(j));
    }
    doc["ops"] = std::move(ops);
    doc["inputs"] = g.inputs;
    doc["outputs"] = g.outputs;
    if (!g.state.empty()) {
      Json state = Json::array();
      for (const auto& [i, o] : g.state) state.push_back({i, o});
      doc["state"] = std::move(state);
    }
    // One line, like Python's json.dumps: still readable with `head -c`, and the smallest.
    parts.json = UnmarkNonFinite(doc.dump());
    return parts;
  } catch (const Json::exception& e) {
    return Error(std::string("cannot serialize graph: ") + e.what());  // e.g. invalid UTF-8
  }
}

Expected<std::vector<uint8_t>> WriteGraphBytes(const ir::Graph& g, const WriteOptions& options) {
  TF_ASSIGN_OR_RETURN(GraphFileParts parts, SerializeGraph(g, options));
  if (parts.json.size() > UINT32_MAX) return Error("graph JSON exceeds 4 GiB");
  return PackGraphFile(parts);
}

Status WriteGraphFile(const ir::Graph& g, const std::string& path, const WriteOptions& options) {
  TF_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, WriteGraphBytes(g, options));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error::Io(path + ": cannot open for writing");
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Error::Io(path + ": write failed");
  return OkStatus();
}

}  // namespace tinyforge::import
