// A hand-written line parser for IR text. Each line is one declaration, so a cursor over
// the line with a few token readers is all the machinery needed.
#include "ir/parser.h"

#include <charconv>
#include <cstring>
#include <map>
#include <variant>

namespace tinyforge::ir {
namespace {

bool NameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '/' || c == '-';
}

// A number token or a bracketed list of them, or true/false; converted per field type.
using RawAttr = std::variant<std::string, std::vector<std::string>, bool>;

class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}

  void Skip() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\r')) ++p_;
  }
  bool AtEnd() {
    Skip();
    return p_ >= s_.size();
  }
  char Peek() {
    Skip();
    return p_ < s_.size() ? s_[p_] : '\0';
  }
  bool Eat(std::string_view tok) {
    Skip();
    if (s_.substr(p_, tok.size()) != tok) return false;
    p_ += tok.size();
    return true;
  }
  Status Expect(std::string_view tok) {
    if (Eat(tok)) return OkStatus();
    return Error("expected '" + std::string(tok) + "' at column " + std::to_string(p_ + 1));
  }
  // Bare [A-Za-z0-9_./-]+ or a quoted string with \" \\ \n \xNN escapes.
  Expected<std::string> Name() {
    Skip();
    std::string out;
    if (p_ < s_.size() && s_[p_] == '"') {
      for (++p_; p_ < s_.size() && s_[p_] != '"'; ++p_) {
        if (s_[p_] != '\\') {
          out += s_[p_];
          continue;
        }
        if (++p_ >= s_.size()) break;
        if (s_[p_] == 'n') {
          out += '\n';
        } else if (s_[p_] == 'x' && p_ + 2 < s_.size()) {
          unsigned v = 0;
          const char* first = s_.data() + p_ + 1;
          auto res = std::from_chars(first, first + 2, v, 16);
          if (res.ec != std::errc() || res.ptr != first + 2) return Error("bad \\x escape");
          out += static_cast<char>(v);
          p_ += 2;
        } else {
          out += s_[p_];
        }
      }
      if (p_ >= s_.size()) return Error("unterminated quoted name");
      ++p_;
      return out;
    }
    while (p_ < s_.size() && NameChar(s_[p_])) out += s_[p_++];
    if (out.empty()) return Error("expected a name at column " + std::to_string(p_ + 1));
    return out;
  }
  // A number token: everything up to a delimiter.
  Expected<std::string> Token() {
    Skip();
    const size_t start = p_;
    while (p_ < s_.size() && !std::strchr(" \t,]})=:", s_[p_])) ++p_;
    if (p_ == start) return Error("expected a value at column " + std::to_string(p_ + 1));
    return std::string(s_.substr(start, p_ - start));
  }
  Expected<std::vector<std::string>> TokenList() {
    TF_RETURN_IF_ERROR(Expect("["));
    std::vector<std::string> out;
    if (Eat("]")) return out;
    do {
      TF_ASSIGN_OR_RETURN(std::string t, Token());
      out.push_back(std::move(t));
    } while (Eat(","));
    TF_RETURN_IF_ERROR(Expect("]"));
    return out;
  }
  std::string_view Rest() {
    Skip();
    return s_.substr(p_);
  }

 private:
  std::string_view s_;
  size_t p_ = 0;
};

template <class T>
Expected<T> Num(const std::string& tok) {
  T v{};
  auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc() || ptr != tok.data() + tok.size()) {
    return Error("bad number '" + tok + "'");
  }
  return v;
}

template <class T>
Expected<std::vector<T>> Nums(const std::vector<std::string>& toks) {
  std::vector<T> out;
  for (const auto& t : toks) {
    TF_ASSIGN_OR_RETURN(T v, Num<T>(t));
    out.push_back(v);
  }
  return out;
}

Expected<TensorId> Id(Cursor& c) {
  TF_RETURN_IF_ERROR(c.Expect("%"));
  TF_ASSIGN_OR_RETURN(std::string tok, c.Token());
  TF_ASSIGN_OR_RETURN(int64_t id, Num<int64_t>(tok));
  if (id < 0 || id > 10'000'000) return Error("tensor id %" + tok + " out of range");
  return static_cast<TensorId>(id);
}

// Either one token or a list, for s= and zp=.
Expected<std::vector<std::string>> OneOrList(Cursor& c) {
  if (c.Peek() == '[') return c.TokenList();
  TF_ASSIGN_OR_RETURN(std::string t, c.Token());
  return std::vector<std::string>{t};
}

Expected<QuantParams> Quant(Cursor& c, DType dtype) {
  QuantParams q;
  q.qmin = IsQuantized(dtype) ? DTypeMin(dtype) : 0;
  q.qmax = IsQuantized(dtype) ? DTypeMax(dtype) : 0;
  do {
    TF_ASSIGN_OR_RETURN(std::string key, c.Name());
    TF_RETURN_IF_ERROR(c.Expect("="));
    if (key == "s") {
      TF_ASSIGN_OR_RETURN(auto toks, OneOrList(c));
      TF_ASSIGN_OR_RETURN(q.scale, Nums<double>(toks));
    } else if (key == "zp") {
      TF_ASSIGN_OR_RETURN(auto toks, OneOrList(c));
      TF_ASSIGN_OR_RETURN(q.zero_point, Nums<int64_t>(toks));
    } else if (key == "axis") {
      TF_ASSIGN_OR_RETURN(std::string tok, c.Token());
      TF_ASSIGN_OR_RETURN(q.axis, Num<int64_t>(tok));
    } else if (key == "range") {
      TF_ASSIGN_OR_RETURN(auto toks, c.TokenList());
      TF_ASSIGN_OR_RETURN(auto r, Nums<int64_t>(toks));
      if (r.size() != 2) return Error("range= needs [qmin,qmax]");
      q.qmin = r[0];
      q.qmax = r[1];
    } else {
      return Error("unknown quant key '" + key + "'");
    }
  } while (c.Eat(","));
  TF_RETURN_IF_ERROR(c.Expect(")"));
  return q;
}

// "NAME?: dtype[dims] q(...)?" after the id.
Status TensorDecl(Cursor& c, TensorId id, Tensor& t) {
  if (c.Peek() != ':') {
    TF_ASSIGN_OR_RETURN(t.name, c.Name());
  } else {
    t.name = "t" + std::to_string(id);
  }
  TF_RETURN_IF_ERROR(c.Expect(":"));
  TF_ASSIGN_OR_RETURN(std::string dtype_name, c.Name());
  const auto dtype = ParseDType(dtype_name);
  if (!dtype) return Error("unknown dtype '" + dtype_name + "'");
  t.dtype = *dtype;
  TF_ASSIGN_OR_RETURN(auto dims, c.TokenList());
  TF_ASSIGN_OR_RETURN(t.shape, Nums<int64_t>(dims));
  if (c.Eat("q(")) {
    TF_ASSIGN_OR_RETURN(t.quant, Quant(c, t.dtype));
  }
  return OkStatus();
}

template <class T>
void PutLE(std::vector<uint8_t>& out, T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // little-endian host, as asserted in exec/host_tensor.cc
  out.insert(out.end(), b, b + sizeof(T));
}

Status ConstValues(Cursor& c, Tensor& t) {
  if (c.Peek() == 'b') return Error("blob(...) constants cannot be read back; inline the values");
  TF_ASSIGN_OR_RETURN(auto toks, c.TokenList());
  std::vector<uint8_t> data;
  for (const auto& tok : toks) {
    if (t.dtype == DType::kFloat32) {
      TF_ASSIGN_OR_RETURN(float v, Num<float>(tok));
      PutLE(data, v);
    } else {
      TF_ASSIGN_OR_RETURN(int64_t v, Num<int64_t>(tok));
      if (v < DTypeMin(t.dtype) || v > DTypeMax(t.dtype))
        return Error("value " + tok + " out of range");
      if (t.dtype == DType::kInt8)
        PutLE(data, static_cast<int8_t>(v));
      else
        PutLE(data, static_cast<int32_t>(v));
    }
  }
  t.data = std::move(data);
  return OkStatus();
}

struct AttrSetter {
  std::map<std::string, RawAttr>& raw;
  std::optional<Error> error;

  template <class T, class Conv>
  void Set(const char* name, T& out, Conv conv) {
    if (error) return;
    auto it = raw.find(name);
    if (it == raw.end()) {
      error = Error(std::string("attribute '") + name + "' missing");
      return;
    }
    auto v = conv(it->second);
    if (!v.ok()) {
      error = v.error().WithPrefix(std::string("attribute '") + name + "'");
      return;
    }
    out = *v;
    raw.erase(it);
  }
  static Expected<std::string> Scalar(const RawAttr& r) {
    if (auto* s = std::get_if<std::string>(&r)) return *s;
    return Error("expected a scalar");
  }
  void operator()(const char* n, int64_t& v) {
    Set(n, v, [](const RawAttr& r) -> Expected<int64_t> {
      TF_ASSIGN_OR_RETURN(std::string s, Scalar(r));
      return Num<int64_t>(s);
    });
  }
  void operator()(const char* n, double& v) {
    Set(n, v, [](const RawAttr& r) -> Expected<double> {
      TF_ASSIGN_OR_RETURN(std::string s, Scalar(r));
      return Num<double>(s);
    });
  }
  void operator()(const char* n, bool& v) {
    Set(n, v, [](const RawAttr& r) -> Expected<bool> {
      if (auto* b = std::get_if<bool>(&r)) return *b;
      return Error("expected true or false");
    });
  }
  void operator()(const char* n, std::vector<int64_t>& v) {
    Set(n, v, [](const RawAttr& r) -> Expected<std::vector<int64_t>> {
      if (auto* l = std::get_if<std::vector<std::string>>(&r)) return Nums<int64_t>(*l);
      return Error("expected a list");
    });
  }
  void operator()(const char* n, Layout& v) {
    Set(n, v, [](const RawAttr& r) -> Expected<Layout> {
      TF_ASSIGN_OR_RETURN(std::string s, Scalar(r));
      const auto layout = ParseLayout(s);
      if (!layout) return Error("expected NCHW or NHWC, got '" + s + "'");
      return *layout;
    });
  }
  void operator()(const char* n, FloatFn& v) {
    Set(n, v, [](const RawAttr& r) -> Expected<FloatFn> {
      TF_ASSIGN_OR_RETURN(std::string s, Scalar(r));
      const auto fn = ParseFloatFn(s);
      if (!fn) return Error("'" + s + "' is no function of kernels/f32/f32_fns.def");
      return *fn;
    });
  }
  template <size_t N>
  void operator()(const char* n, std::array<int64_t, N>& v) {
    Set(n, v, [](const RawAttr& r) -> Expected<std::array<int64_t, N>> {
      auto* l = std::get_if<std::vector<std::string>>(&r);
      if (!l || l->size() != N) return Error("expected a list of " + std::to_string(N));
      TF_ASSIGN_OR_RETURN(auto nums, Nums<int64_t>(*l));
      std::array<int64_t, N> out;
      std::copy(nums.begin(), nums.end(), out.begin());
      return out;
    });
  }
};

Expected<Attrs> ParseAttrs(Cursor& c, OpType type) {
  std::map<std::string, RawAttr> raw;
  if (c.Eat("{")) {
    do {
      TF_ASSIGN_OR_RETURN(std::string key, c.Name());
      TF_RETURN_IF_ERROR(c.Expect("="));
      if (c.Peek() == '[') {
        TF_ASSIGN_OR_RETURN(auto list, c.TokenList());
        raw[key] = list;
      } else {
        TF_ASSIGN_OR_RETURN(std::string tok, c.Token());
        if (tok == "true" || tok == "false")
          raw[key] = (tok == "true");
        else
          raw[key] = tok;
      }
    } while (c.Eat(","));
    TF_RETURN_IF_ERROR(c.Expect("}"));
  }
  Attrs attrs = DefaultAttrs(type);
  AttrSetter setter{raw, std::nullopt};
  std::visit([&](auto& a) { a.Fields(a, setter); }, attrs);
  if (setter.error) return *setter.error;
  if (!raw.empty()) return Error("unknown attribute '" + raw.begin()->first + "'");
  return attrs;
}

struct State {
  Graph g;
  std::map<TensorId, Tensor> tensors;
};

Status Declare(State& st, TensorId id, Tensor t) {
  if (!st.tensors.emplace(id, std::move(t)).second) {
    return Error("tensor %" + std::to_string(id) + " declared twice");
  }
  return OkStatus();
}

Status ParseOpLine(Cursor& c, State& st) {
  Op op;
  do {
    TF_ASSIGN_OR_RETURN(TensorId id, Id(c));
    Tensor t;
    TF_RETURN_IF_ERROR(TensorDecl(c, id, t));
    TF_RETURN_IF_ERROR(Declare(st, id, std::move(t)));
    op.outputs.push_back(id);
  } while (c.Eat(","));
  TF_RETURN_IF_ERROR(c.Expect("="));
  TF_ASSIGN_OR_RETURN(std::string type_name, c.Name());
  const auto type = ParseOpType(type_name);
  if (!type) return Error("unknown op type '" + type_name + "'");
  op.type = *type;
  TF_RETURN_IF_ERROR(c.Expect("("));
  if (!c.Eat(")")) {
    do {
      TF_ASSIGN_OR_RETURN(TensorId id, Id(c));
      op.inputs.push_back(id);
    } while (c.Eat(","));
    TF_RETURN_IF_ERROR(c.Expect(")"));
  }
  TF_ASSIGN_OR_RETURN(op.attrs, ParseAttrs(c, op.type));
  op.name = "op" + std::to_string(st.g.ops.size());
  if (c.Eat("#")) {
    TF_ASSIGN_OR_RETURN(op.name, c.Name());
    if (c.Eat("@")) {
      if (c.Peek() == '"') {
        TF_ASSIGN_OR_RETURN(op.source, c.Name());
      } else {
        op.source = std::string(c.Rest());
        st.g.AddOp(std::move(op));
        return OkStatus();
      }
    }
  }
  if (!c.AtEnd()) return Error("unexpected text '" + std::string(c.Rest()) + "'");
  st.g.AddOp(std::move(op));
  return OkStatus();
}

Status ParseLine(Cursor& c, State& st) {
  if (c.Eat("graph ")) {
    TF_ASSIGN_OR_RETURN(st.g.name, c.Name());
    TF_RETURN_IF_ERROR(c.Expect("kind="));
    TF_ASSIGN_OR_RETURN(std::string kind, c.Name());
    const auto k = ParseGraphKind(kind);
    if (!k) return Error("unknown graph kind '" + kind + "'");
    st.g.kind = *k;
    for (auto [key, field] : {std::pair{"layout=", &st.g.layout},
                              std::pair{"io_layout=", &st.g.io_layout}}) {
      if (!c.Eat(key)) continue;
      TF_ASSIGN_OR_RETURN(std::string name, c.Name());
      const auto layout = ParseLayout(name);
      if (!layout) return Error("unknown layout '" + name + "' (expected NCHW or NHWC)");
      *field = *layout;
    }
    if (c.Eat("rounding=")) {
      TF_ASSIGN_OR_RETURN(std::string name, c.Name());
      const auto rounding = ParseRounding(name);
      if (!rounding) return Error("unknown rounding '" + name + "' (expected single or double)");
      st.g.rounding = *rounding;
    }
    if (c.Eat("producer=")) {
      TF_ASSIGN_OR_RETURN(st.g.producer, c.Name());
    }
    return c.AtEnd() ? OkStatus() : Status(Error("unexpected text after graph header"));
  }
  if (c.Eat("output")) {
    if (c.AtEnd()) return OkStatus();
    do {
      TF_ASSIGN_OR_RETURN(TensorId id, Id(c));
      st.g.outputs.push_back(id);
    } while (c.Eat(","));
    return c.AtEnd() ? OkStatus() : Status(Error("unexpected text after outputs"));
  }
  for (const char* kw : {"input ", "const ", "tensor "}) {
    if (!c.Eat(kw)) continue;
    TF_ASSIGN_OR_RETURN(TensorId id, Id(c));
    Tensor t;
    TF_RETURN_IF_ERROR(TensorDecl(c, id, t));
    if (kw[0] == 'c') {
      TF_RETURN_IF_ERROR(c.Expect("="));
      TF_RETURN_IF_ERROR(ConstValues(c, t));
    }
    if (kw[0] == 'i') st.g.inputs.push_back(id);
    TF_RETURN_IF_ERROR(Declare(st, id, std::move(t)));
    return c.AtEnd() ? OkStatus()
                     : Status(Error("unexpected text '" + std::string(c.Rest()) + "'"));
  }
  if (c.Peek() == '%') return ParseOpLine(c, st);
  return Error("expected graph, input, const, tensor, output or an op line");
}

}  // namespace

Expected<Graph> ParseGraph(std::string_view text) {
  State st;
  bool seen_header = false;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    Cursor c(line);
    if (c.AtEnd() || c.Eat("//")) continue;
    const bool header = c.Peek() == 'g';
    if (header == seen_header) {
      return Error("line " + std::to_string(line_no) +
                   (header ? ": second graph header" : ": expected the 'graph' header first"));
    }
    seen_header = true;
    Status s = ParseLine(c, st);
    TF_RETURN_IF_ERROR_PREFIX(s, "line " + std::to_string(line_no));
  }
  if (!seen_header) return Error("line 1: empty text, expected a 'graph' header");
  const TensorId count = st.tensors.empty() ? 0 : st.tensors.rbegin()->first + 1;
  for (TensorId id = 0; id < count; ++id) {
    auto it = st.tensors.find(id);
    if (it == st.tensors.end()) {
      return Error("tensor %" + std::to_string(id) + " is never declared (ids must be 0..N-1)");
    }
    st.g.tensors.push_back(std::move(it->second));
  }
  return std::move(st.g);
}

}  // namespace tinyforge::ir
