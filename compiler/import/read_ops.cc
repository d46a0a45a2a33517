// Reading ops and their attributes. Attribute names and types come from each attrs
// struct's Fields() list (ir/attrs.h), so this file needs no change when attributes change.
#include <set>

#include "import/read_internal.h"
#include "support/text.h"

namespace tinyforge::import {
namespace {

using ir::Op;
using ir::OpType;

// Reads each field of an attrs struct from a JSON object, stopping at the first error.
struct AttrReader {
  const Json& obj;
  std::optional<Error> error;
  std::set<std::string> known;

  template <class T, class Get>
  void Read(const char* name, T& out, Get get) {
    known.insert(name);
    if (error) return;
    const std::string field = std::string("attrs.") + name;
    auto member = Member(obj, name, field);
    if (!member.ok()) {
      error = member.error();
      return;
    }
    auto value = get(**member, field);
    if (!value.ok()) {
      error = value.error();
      return;
    }
    out = std::move(*value);
  }
  void operator()(const char* name, int64_t& v) { Read(name, v, GetInt); }
  void operator()(const char* name, double& v) { Read(name, v, GetDouble); }
  void operator()(const char* name, bool& v) { Read(name, v, GetBool); }
  void operator()(const char* name, std::vector<int64_t>& v) { Read(name, v, GetIntList); }
  void operator()(const char* name, ir::Layout& v) {
    Read(name, v, [](const Json& j, const std::string& field) -> Expected<ir::Layout> {
      TF_ASSIGN_OR_RETURN(std::string s, GetString(j, field));
      const auto layout = ir::ParseLayout(s);
      if (!layout) return Error(field + ": \"" + s + "\" is not \"NCHW\" or \"NHWC\"");
      return *layout;
    });
  }
  void operator()(const char* name, ir::FloatFn& v) {
    Read(name, v, [](const Json& j, const std::string& field) -> Expected<ir::FloatFn> {
      TF_ASSIGN_OR_RETURN(std::string s, GetString(j, field));
      const auto fn = ir::ParseFloatFn(s);
      if (!fn) return Error(field + ": \"" + s + "\" is no function of kernels/f32/f32_fns.def");
      return *fn;
    });
  }
  template <size_t N>
  void operator()(const char* name, std::array<int64_t, N>& v) {
    Read(name, v, [](const Json& j, const std::string& field) -> Expected<std::array<int64_t, N>> {
      TF_ASSIGN_OR_RETURN(std::vector<int64_t> list, GetIntList(j, field));
      if (list.size() != N) {
        return Error(field + ": expected " + std::to_string(N) + " integers, got " +
                     std::to_string(list.size()));
      }
      std::array<int64_t, N> out;
      std::copy(list.begin(), list.end(), out.begin());
      return out;
    });
  }
};

Expected<ir::Attrs> ReadAttrs(const Json& op_json, OpType type) {
  ir::Attrs attrs = ir::DefaultAttrs(type);
  const bool none = std::holds_alternative<ir::NoAttrs>(attrs);
  auto it = op_json.find("attrs");
  // Ops without attributes may omit "attrs" or give null / {}.
  if (it == op_json.end() || it->is_null()) {
    if (none) return attrs;
    return Error("attrs: missing (" + std::string(ir::OpTypeName(type)) + " needs attributes)");
  }
  if (!it->is_object()) return Error("attrs: expected an object, got " + JsonTypeName(*it));
  AttrReader reader{*it, std::nullopt, {}};
  std::visit([&](auto& a) { a.Fields(a, reader); }, attrs);
  if (reader.error) return *reader.error;
  // An attribute we do not know could change the semantics (output_padding, ...): reject
  // rather than silently compute something else.
  for (auto member = it->begin(); member != it->end(); ++member) {
    if (!reader.known.count(member.key())) {
      return Error("attrs." + member.key() + ": unknown attribute for " +
                   std::string(ir::OpTypeName(type)));
    }
  }
  return attrs;
}

}  // namespace

Expected<std::vector<ir::TensorId>> ReadTensorIds(const Json& j, const std::string& field,
                                                  size_t num_tensors) {
  TF_ASSIGN_OR_RETURN(std::vector<int64_t> ids, GetIntList(j, field));
  std::vector<ir::TensorId> out;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || static_cast<uint64_t>(ids[i]) >= num_tensors) {
      return Error(field + "[" + std::to_string(i) + "]: tensor index " + std::to_string(ids[i]) +
                   " out of range (" + std::to_string(num_tensors) + " tensors)");
    }
    out.push_back(static_cast<ir::TensorId>(ids[i]));
  }
  return out;
}

Expected<Op> ReadOp(const Json& j, size_t index, size_t num_tensors) {
  const std::string num = "(#" + std::to_string(index) + ")";
  if (!j.is_object()) return Error("op " + num + ": expected an object, got " + JsonTypeName(j));
  Op op;
  {
    auto name = Member(j, "name", "name");
    Expected<std::string> s =
        name.ok() ? GetString(**name, "name") : Expected<std::string>(name.error());
    TF_RETURN_IF_ERROR_PREFIX(s, "op #" + std::to_string(index));
    if (s->empty()) return Error("op #" + std::to_string(index) + ": name: empty");
    op.name = *s;
  }
  const std::string label = "op '" + op.name + "' " + num;
  auto read = [&]() -> Status {
    TF_ASSIGN_OR_RETURN(const Json* type_json, Member(j, "type", "type"));
    TF_ASSIGN_OR_RETURN(std::string type_name, GetString(*type_json, "type"));
    const auto type = ir::ParseOpType(type_name);
    if (!type || !ir::IsGraphFileOp(*type)) {
      return Error("type: unknown op type " + Quote(type_name));
    }
    op.type = *type;
    TF_ASSIGN_OR_RETURN(const Json* inputs, Member(j, "inputs", "inputs"));
    TF_ASSIGN_OR_RETURN(op.inputs, ReadTensorIds(*inputs, "inputs", num_tensors));
    TF_ASSIGN_OR_RETURN(const Json* outputs, Member(j, "outputs", "outputs"));
    TF_ASSIGN_OR_RETURN(op.outputs, ReadTensorIds(*outputs, "outputs", num_tensors));
    TF_ASSIGN_OR_RETURN(op.attrs, ReadAttrs(j, op.type));
    auto source = j.find("source");
    if (source != j.end() && !source->is_null()) {
      TF_ASSIGN_OR_RETURN(op.source, GetString(*source, "source"));
    }
    return OkStatus();
  };
  TF_RETURN_IF_ERROR_PREFIX(read(), label);
  return op;
}

}  // namespace tinyforge::import
