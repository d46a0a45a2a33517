// Ops of the IR: a type from ir/op_types.def, tensor ids in and out, typed attributes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attrs.h"

namespace tinyforge::ir {

using TensorId = int32_t;  // index into Graph::tensors

enum class OpType : uint8_t {
#define TF_OP(Enum, name, AttrsT, min_in, max_in, n_out) k##Enum,
#include "ir/op_types.def"
#undef TF_OP
};

inline constexpr int kNumOpTypes = 0
#define TF_OP(...) +1
#include "ir/op_types.def"
#undef TF_OP
    ;

inline constexpr int kVariadic = -1;

struct OpTypeInfo {
  std::string_view name;  // "conv2d"
  int min_inputs;
  int max_inputs;  // kVariadic = no upper bound
  int num_outputs;
};

const OpTypeInfo& GetOpTypeInfo(OpType type);
std::string_view OpTypeName(OpType type);
std::optional<OpType> ParseOpType(std::string_view name);
// Op types the graph file (format v1) may contain: all of them (the lowered ops are v1
// additions; the verifier checks which graph kind allows which op).
bool IsGraphFileOp(OpType type);
// Ops allowed in a lowered graph (kind "int8"): the lowered block of op_types.def, reshape,
// transpose, slice, resize, argmax, gather, the float fallback ops, a float model's ops
// (IsFloatModelOp), and quantize/dequantize (at the graph's edges only).
bool IsLoweredOp(OpType type);
// The float fallback ops (unary, binary, cumsum): float32 in every kind of graph; in an int8
// graph they run on the float kernels (kernels/f32) between dequantize and quantize.
inline bool IsFloatFallbackOp(OpType type) {
  return type == OpType::kUnary || type == OpType::kBinary || type == OpType::kCumsum;
}

// The float model layers (fconv2d, fdwconv2d, ffc, favgpool2d, fmaxpool2d): float32 ops of
// a lowered graph made from a float graph (fold-float, docs/decisions.md 52).
inline bool IsFloatLayerOp(OpType type) {
  return type == OpType::kFConv2d || type == OpType::kFDwConv2d || type == OpType::kFFc ||
         type == OpType::kFAvgPool2d || type == OpType::kFMaxPool2d;
}

// The ops of the float block a lowered float model keeps as they are (fold-float,
// docs/decisions.md 68), float32 only: the reductions, softmax, layer norm, matmul, cat and
// pad (transpose, slice, resize, gather and argmax are lowered ops of any dtype already).
inline bool IsFloatModelOp(OpType type) {
  return type == OpType::kMean || type == OpType::kSum || type == OpType::kAmax ||
         type == OpType::kSoftmax || type == OpType::kLayerNorm || type == OpType::kMatmul ||
         type == OpType::kCat || type == OpType::kPad;
}

// The Attrs alternative `type` carries, default-initialized.
Attrs DefaultAttrs(OpType type);
// True if `attrs` holds the alternative `type` carries.
bool AttrsMatch(OpType type, const Attrs& attrs);

struct Op {
  OpType type = OpType::kRelu;
  std::string name;  // unique in its graph, non-empty; used in diagnostics
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  Attrs attrs;         // the alternative for `type` (verified)
  std::string source;  // "file.py:41" of the model code, or empty

  // Precondition: AttrsMatch(type, attrs) (true in a verified graph).
  template <class A>
  const A& attrs_as() const {
    return std::get<A>(attrs);
  }
  template <class A>
  A& attrs_as() {
    return std::get<A>(attrs);
  }
};

// An op with DefaultAttrs(type), ready to be filled in by a builder or a pass.
Op MakeOp(OpType type, std::string name, std::vector<TensorId> inputs,
          std::vector<TensorId> outputs);
Op MakeOp(OpType type, std::string name, std::vector<TensorId> inputs,
          std::vector<TensorId> outputs, Attrs attrs);

}  // namespace tinyforge::ir
