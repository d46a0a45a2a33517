#include "ir/printer.h"

#include <cstring>
#include <type_traits>

#include "support/text.h"

namespace tinyforge::ir {
namespace {

bool InRange(const Graph& g, TensorId t) {
  return t >= 0 && static_cast<size_t>(t) < g.tensors.size();
}

std::string Ref(const Graph& g, TensorId t) {
  return (InRange(g, t) ? "%" : "%?") + std::to_string(t);
}

template <class T>
std::string List(const std::vector<T>& v, int max_list) {
  std::string out = "[";
  const size_t n = (max_list > 0 && v.size() > static_cast<size_t>(max_list))
                       ? static_cast<size_t>(max_list)
                       : v.size();
  for (size_t i = 0; i < n; ++i) {
    if (i) out += ',';
    if constexpr (std::is_floating_point_v<T>) {
      out += FormatDouble(v[i]);
    } else {
      out += std::to_string(v[i]);
    }
  }
  if (n < v.size()) out += ",...(" + std::to_string(v.size()) + " values)";
  return out + "]";
}

// Constant values in C order, decoded from little-endian bytes.
std::string InlineValues(const Tensor& t) {
  const auto& bytes = *t.data;
  const size_t size = static_cast<size_t>(DTypeSize(t.dtype));
  std::string out = "[";
  for (size_t off = 0; off + size <= bytes.size(); off += size) {
    if (off) out += ',';
    if (t.dtype == DType::kInt8) {
      out += std::to_string(static_cast<int8_t>(bytes[off]));
    } else {
      uint32_t u = static_cast<uint32_t>(bytes[off]) |
                   (static_cast<uint32_t>(bytes[off + 1]) << 8) |
                   (static_cast<uint32_t>(bytes[off + 2]) << 16) |
                   (static_cast<uint32_t>(bytes[off + 3]) << 24);
      if (t.dtype == DType::kInt32) {
        out += std::to_string(static_cast<int32_t>(u));
      } else {
        float f;
        std::memcpy(&f, &u, sizeof f);
        out += FormatFloat(f);
      }
    }
  }
  return out + "]";
}

std::string Declaration(const Graph& g, TensorId id, const char* keyword, const PrintOptions& o) {
  const Tensor& t = g.tensor(id);
  std::string line = std::string("  ") + keyword + " %" + std::to_string(id);
  if (o.tensor_names) line += " " + PrintName(t.name);
  line += ": " + PrintTensorType(t, o);
  if (t.data) {
    const bool small = t.data->size() <= static_cast<size_t>(o.max_inline_constant) *
                                             static_cast<size_t>(DTypeSize(t.dtype));
    if (small) {
      line += " = " + InlineValues(t);
    } else {
      char hash[32];
      std::snprintf(hash, sizeof hash, "0x%016llx",
                    static_cast<unsigned long long>(Fnv1a64(*t.data)));
      line += " = blob(" + std::to_string(t.data->size()) + " bytes, fnv1a=" + hash + ")";
    }
  }
  return line + "\n";
}

struct AttrPrinter {
  std::string* out;
  void Sep(const char* name) {
    *out += out->empty() ? "{" : ", ";
    *out += name;
    *out += '=';
  }
  void operator()(const char* name, int64_t v) {
    Sep(name);
    *out += std::to_string(v);
  }
  void operator()(const char* name, double v) {
    Sep(name);
    *out += FormatDouble(v);
  }
  void operator()(const char* name, bool v) {
    Sep(name);
    *out += v ? "true" : "false";
  }
  template <size_t N>
  void operator()(const char* name, const std::array<int64_t, N>& v) {
    Sep(name);
    *out += FormatInts(v);
  }
  void operator()(const char* name, const std::vector<int64_t>& v) {
    Sep(name);
    *out += FormatInts(v);
  }
  void operator()(const char* name, Layout v) {
    Sep(name);
    *out += LayoutName(v);
  }
  void operator()(const char* name, FloatFn v) {
    Sep(name);
    *out += FloatFnName(v);
  }
};

bool SimpleName(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '/' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// Sources ("models.py:41") run to the end of the line, so they print bare unless they
// could be misread: control characters, a leading quote, or surrounding spaces.
std::string PrintSource(const std::string& s) {
  bool plain = s.front() != '"' && s.front() != ' ' && s.back() != ' ';
  for (char c : s) plain = plain && static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  return plain ? s : Quote(s);
}

}  // namespace

uint64_t Fnv1a64(const std::vector<uint8_t>& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string PrintName(const std::string& name) { return SimpleName(name) ? name : Quote(name); }

std::string PrintQuant(const QuantParams& q, DType dtype, int max_list) {
  std::string out = "q(";
  if (q.axis) {
    out += "axis=" + std::to_string(*q.axis) + ", s=" + List(q.scale, max_list) +
           ", zp=" + List(q.zero_point, max_list);
  } else {
    out += "s=" + (q.scale.size() == 1 ? FormatDouble(q.scale[0]) : List(q.scale, max_list));
    out += ", zp=" + (q.zero_point.size() == 1 ? std::to_string(q.zero_point[0])
                                               : List(q.zero_point, max_list));
  }
  if (!IsQuantized(dtype) || q.qmin != DTypeMin(dtype) || q.qmax != DTypeMax(dtype)) {
    out += ", range=[" + std::to_string(q.qmin) + "," + std::to_string(q.qmax) + "]";
  }
  return out + ")";
}

std::string PrintTensorType(const Tensor& t, const PrintOptions& o) {
  std::string out = std::string(DTypeName(t.dtype)) + FormatInts(t.shape);
  if (t.quant) out += " " + PrintQuant(*t.quant, t.dtype, o.max_list);
  return out;
}

std::string PrintAttrs(const Attrs& attrs) {
  std::string out;
  std::visit([&](const auto& a) { a.Fields(a, AttrPrinter{&out}); }, attrs);
  return out.empty() ? out : out + "}";
}

std::string PrintOp(const Graph& g, size_t op_index, const PrintOptions& o) {
  const Op& op = g.ops[op_index];
  std::string line = " ";
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    const TensorId t = op.outputs[i];
    line += (i ? ", " : " ") + Ref(g, t);
    if (!InRange(g, t)) continue;
    if (o.tensor_names) line += " " + PrintName(g.tensor(t).name);
    line += ": " + PrintTensorType(g.tensor(t), o);
  }
  line += " = " + std::string(OpTypeName(op.type)) + "(";
  for (size_t i = 0; i < op.inputs.size(); ++i) line += (i ? ", " : "") + Ref(g, op.inputs[i]);
  line += ")";
  const std::string attrs = PrintAttrs(op.attrs);
  if (!attrs.empty()) line += " " + attrs;
  if (o.op_names) {
    line += "  # " + PrintName(op.name);
    if (o.sources && !op.source.empty()) line += " @ " + PrintSource(op.source);
  }
  return line;
}

std::string PrintGraph(const Graph& g, const PrintOptions& o) {
  std::string out = "graph " + PrintName(g.name) + " kind=" + std::string(GraphKindName(g.kind));
  if (g.layout != Layout::kNCHW || g.io_layout != Layout::kNCHW) {
    out += " layout=" + std::string(LayoutName(g.layout)) +
           " io_layout=" + std::string(LayoutName(g.io_layout));
  }
  if (g.rounding != Rounding::kSingle) out += " rounding=" + std::string(RoundingName(g.rounding));
  if (!g.producer.empty()) out += " producer=" + Quote(g.producer);
  out += "\n";
  std::vector<bool> declared(g.tensors.size(), false);
  for (TensorId t : g.inputs) {
    if (!InRange(g, t) || declared[static_cast<size_t>(t)]) continue;
    declared[static_cast<size_t>(t)] = true;
    out += Declaration(g, t, "input", o);
  }
  for (const Op& op : g.ops) {
    for (TensorId t : op.outputs) {
      if (InRange(g, t)) declared[static_cast<size_t>(t)] = true;
    }
  }
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    if (declared[i]) continue;
    const bool constant = g.tensors[i].is_constant();
    out += Declaration(g, static_cast<TensorId>(i), constant ? "const" : "tensor", o);
  }
  for (size_t i = 0; i < g.ops.size(); ++i) out += PrintOp(g, i, o) + "\n";
  out += "  output";
  for (size_t i = 0; i < g.outputs.size(); ++i) out += (i ? ", " : " ") + Ref(g, g.outputs[i]);
  return out + "\n";
}

}  // namespace tinyforge::ir
