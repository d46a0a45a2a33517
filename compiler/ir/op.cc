#include "ir/op.h"

#include <array>

namespace tinyforge::ir {
namespace {

constexpr std::array<OpTypeInfo, kNumOpTypes> kInfos = {{
#define TF_OP(Enum, name, AttrsT, min_in, max_in, n_out) {name, min_in, max_in, n_out},
#include "ir/op_types.def"
#undef TF_OP
}};

}  // namespace

const OpTypeInfo& GetOpTypeInfo(OpType type) { return kInfos[static_cast<size_t>(type)]; }

std::string_view OpTypeName(OpType type) { return GetOpTypeInfo(type).name; }

std::optional<OpType> ParseOpType(std::string_view name) {
  for (size_t i = 0; i < kInfos.size(); ++i) {
    if (kInfos[i].name == name) return static_cast<OpType>(i);
  }
  return std::nullopt;
}

// The lowered ops are format v1 additions (graph files of kind "int8"), so every op type
// may appear in a file; the verifier checks which kinds allow which ops.
bool IsGraphFileOp(OpType) { return true; }

bool IsLoweredOp(OpType type) {
  return type >= OpType::kQuantize || type == OpType::kReshape || type == OpType::kTranspose ||
         type == OpType::kSlice || type == OpType::kResize || type == OpType::kArgMax ||
         type == OpType::kGather || IsFloatFallbackOp(type) || IsFloatModelOp(type);
}

namespace {
struct FloatFnInfo {
  std::string_view name;
  int arity;
};
constexpr FloatFnInfo kFloatFns[] = {
#define TF_F32_FN(Enum, name, arity) {#name, arity},
#include "../../kernels/f32/f32_fns.def"
};
}  // namespace

std::string_view FloatFnName(FloatFn fn) { return kFloatFns[static_cast<size_t>(fn)].name; }

std::optional<FloatFn> ParseFloatFn(std::string_view name) {
  for (size_t i = 0; i < std::size(kFloatFns); ++i) {
    if (kFloatFns[i].name == name) return static_cast<FloatFn>(i);
  }
  return std::nullopt;
}

int FloatFnArity(FloatFn fn) { return kFloatFns[static_cast<size_t>(fn)].arity; }

std::string_view LayoutName(Layout layout) { return layout == Layout::kNHWC ? "NHWC" : "NCHW"; }

std::optional<Layout> ParseLayout(std::string_view name) {
  if (name == "NCHW") return Layout::kNCHW;
  if (name == "NHWC") return Layout::kNHWC;
  return std::nullopt;
}

std::string_view RoundingName(Rounding rounding) {
  return rounding == Rounding::kDouble ? "double" : "single";
}

std::optional<Rounding> ParseRounding(std::string_view name) {
  if (name == "single") return Rounding::kSingle;
  if (name == "double") return Rounding::kDouble;
  return std::nullopt;
}

Attrs DefaultAttrs(OpType type) {
  switch (type) {
#define TF_OP(Enum, name, AttrsT, min_in, max_in, n_out) \
  case OpType::k##Enum:                                  \
    return AttrsT{};
#include "ir/op_types.def"
#undef TF_OP
  }
  return NoAttrs{};
}

bool AttrsMatch(OpType type, const Attrs& attrs) {
  switch (type) {
#define TF_OP(Enum, name, AttrsT, min_in, max_in, n_out) \
  case OpType::k##Enum:                                  \
    return std::holds_alternative<AttrsT>(attrs);
#include "ir/op_types.def"
#undef TF_OP
  }
  return false;
}

Op MakeOp(OpType type, std::string name, std::vector<TensorId> inputs,
          std::vector<TensorId> outputs) {
  return MakeOp(type, std::move(name), std::move(inputs), std::move(outputs), DefaultAttrs(type));
}

Op MakeOp(OpType type, std::string name, std::vector<TensorId> inputs,
          std::vector<TensorId> outputs, Attrs attrs) {
  Op op;
  op.type = type;
  op.name = std::move(name);
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  op.attrs = std::move(attrs);
  return op;
}

}  // namespace tinyforge::ir
