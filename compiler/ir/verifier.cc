#include "ir/verifier.h"

#include <unordered_set>

#include "ir/shape_inference.h"
#include "ir/shape_inference_internal.h"
#include "support/text.h"

namespace tinyforge::ir {
namespace {

// Where a tensor's value comes from, filled in while walking the ops in order.
enum class Def : uint8_t { kUndefined, kInput, kConstant, kOpOutput };

std::string Field(const char* list, size_t i) {
  return std::string(list) + "[" + std::to_string(i) + "]";
}

std::string Desc(const Tensor& t) { return std::string(DTypeName(t.dtype)) + FormatInts(t.shape); }

// Per-op dtype rules. Compute ops are float32 in and out (in a QDQ graph they run between
// dequantize and quantize); reshape and cat only move data, so they take any dtype, the
// same on every input and the output (so does transpose), with identical quantization.
Status CheckDTypes(const Graph& g, const Op& op) {
  auto in = [&](size_t i) -> const Tensor& { return g.tensor(op.inputs[i]); };
  auto out = [&](size_t i) -> const Tensor& { return g.tensor(op.outputs[i]); };
  auto expect = [&](const char* list, size_t i, const Tensor& t, bool ok, const char* want) {
    return ok ? OkStatus()
              : Status(
                    Error(Field(list, i) + ": " + Desc(t) + " '" + t.name + "' must be " + want));
  };
  if (op.type > OpType::kDequantize) return internal::CheckLoweredDTypes(g, op);
  switch (op.type) {
    case OpType::kQuantize:
      TF_RETURN_IF_ERROR(expect("inputs", 0, in(0), in(0).dtype == DType::kFloat32, "float32"));
      return expect("outputs", 0, out(0), IsQuantized(out(0).dtype) && out(0).quant.has_value(),
                    IsQuantized(out(0).dtype) ? "int8 or int32 (with quant)" : "int8 or int32");
    case OpType::kDequantize:
      TF_RETURN_IF_ERROR(
          expect("inputs", 0, in(0), IsQuantized(in(0).dtype) && in(0).quant.has_value(),
                 "int8 or int32 (with quant)"));
      return expect("outputs", 0, out(0), out(0).dtype == DType::kFloat32, "float32");
    case OpType::kArgMax:  // indices of a float32 or int8 (quantized) input
      TF_RETURN_IF_ERROR(expect("inputs", 0, in(0),
                                in(0).dtype == DType::kFloat32 ||
                                    (in(0).dtype == DType::kInt8 && in(0).quant.has_value() &&
                                     !in(0).quant->per_channel()),
                                "float32 or int8 (per-tensor)"));
      return expect("outputs", 0, out(0), out(0).dtype == DType::kInt32 && !out(0).quant,
                    "int32 without quant (indices)");
    case OpType::kGather:  // float32 or int8 x (y quantized alike), int32 indices
      TF_RETURN_IF_ERROR(expect("inputs", 1, in(1), in(1).dtype == DType::kInt32 && !in(1).quant,
                                "int32 without quant (indices)"));
      return expect("outputs", 0, out(0),
                    out(0).dtype == in(0).dtype && out(0).quant == in(0).quant &&
                        (in(0).dtype == DType::kFloat32 || in(0).dtype == DType::kInt8),
                    "float32, or int8 with inputs[0]'s quantization");
    case OpType::kReshape:
    case OpType::kTranspose:
    case OpType::kSlice:
    case OpType::kResize:
    case OpType::kCat: {
      const Tensor& ref = out(0);
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        const Tensor& t = in(i);
        if (t.dtype != ref.dtype || t.quant != ref.quant) {
          return Error(Field("inputs", i) + ": " + Desc(t) + " '" + t.name +
                       "' must have the output's dtype and quantization (" +
                       std::string(DTypeName(ref.dtype)) + ")");
        }
      }
      return OkStatus();
    }
    default:
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        TF_RETURN_IF_ERROR(expect("inputs", i, in(i), in(i).dtype == DType::kFloat32, "float32"));
      }
      for (size_t i = 0; i < op.outputs.size(); ++i) {
        TF_RETURN_IF_ERROR(
            expect("outputs", i, out(i), out(i).dtype == DType::kFloat32, "float32"));
      }
      return OkStatus();
  }
}

Status VerifyOp(const Graph& g, size_t index, std::vector<Def>& def) {
  const Op& op = g.ops[index];
  const OpTypeInfo& info = GetOpTypeInfo(op.type);
  if (op.name.empty()) return Error("name: empty");
  const int n_in = static_cast<int>(op.inputs.size());
  if (n_in < info.min_inputs || (info.max_inputs != kVariadic && n_in > info.max_inputs)) {
    return Error("inputs: " + std::string(info.name) + " takes " + std::to_string(info.min_inputs) +
                 (info.max_inputs == kVariadic         ? " or more"
                  : info.max_inputs != info.min_inputs ? " to " + std::to_string(info.max_inputs)
                                                       : std::string()) +
                 " inputs, got " + std::to_string(n_in));
  }
  if (static_cast<int>(op.outputs.size()) != info.num_outputs) {
    return Error("outputs: " + std::string(info.name) + " has " + std::to_string(info.num_outputs) +
                 " output(s), got " + std::to_string(op.outputs.size()));
  }
  if (!AttrsMatch(op.type, op.attrs)) {
    return Error("attrs: do not belong to op type " + std::string(info.name));
  }
  const size_t n_tensors = g.tensors.size();
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const TensorId t = op.inputs[i];
    if (t < 0 || static_cast<size_t>(t) >= n_tensors) {
      return Error(Field("inputs", i) + ": tensor index " + std::to_string(t) + " out of range (" +
                   std::to_string(n_tensors) + " tensors)");
    }
    if (def[static_cast<size_t>(t)] == Def::kUndefined) {
      return Error(Field("inputs", i) + ": tensor '" + g.tensor(t).name + "' (#" +
                   std::to_string(t) + ") is used before it is produced (ops must be in " +
                   "topological order)");
    }
  }
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    const TensorId t = op.outputs[i];
    if (t < 0 || static_cast<size_t>(t) >= n_tensors) {
      return Error(Field("outputs", i) + ": tensor index " + std::to_string(t) + " out of range (" +
                   std::to_string(n_tensors) + " tensors)");
    }
    const Def d = def[static_cast<size_t>(t)];
    if (d != Def::kUndefined) {
      static const char* const kWhat[] = {"", "a graph input", "a constant",
                                          "already produced by an earlier op or output"};
      return Error(Field("outputs", i) + ": tensor '" + g.tensor(t).name + "' (#" +
                   std::to_string(t) + ") is " + kWhat[static_cast<int>(d)] +
                   "; it cannot be produced here");
    }
    def[static_cast<size_t>(t)] = Def::kOpOutput;
  }
  TF_RETURN_IF_ERROR(CheckDTypes(g, op));
  TF_ASSIGN_OR_RETURN(std::vector<Shape> shapes, InferShapes(g, op));
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    const Tensor& t = g.tensor(op.outputs[i]);
    if (t.shape != shapes[i]) {
      return Error(Field("outputs", i) + ": shape " + FormatInts(t.shape) + " of '" + t.name +
                   "' does not match inferred " + FormatInts(shapes[i]));
    }
  }
  return OkStatus();
}

Status VerifyIds(const Graph& g, const char* field, const std::vector<TensorId>& ids) {
  std::unordered_set<TensorId> seen;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= g.tensors.size()) {
      return Error(Field(field, i) + ": tensor index " + std::to_string(ids[i]) +
                   " out of range (" + std::to_string(g.tensors.size()) + " tensors)");
    }
    if (!seen.insert(ids[i]).second) {
      return Error(Field(field, i) + ": tensor #" + std::to_string(ids[i]) + " listed twice");
    }
  }
  return OkStatus();
}

}  // namespace

std::string TensorLabel(const Graph& g, TensorId id) {
  const bool known = id >= 0 && static_cast<size_t>(id) < g.tensors.size();
  return "tensor '" + (known ? g.tensor(id).name : std::string("?")) + "' (#" + std::to_string(id) +
         ")";
}

std::string OpLabel(const Graph& g, size_t op_index) {
  const bool known = op_index < g.ops.size();
  return "op '" + (known ? g.ops[op_index].name : std::string("?")) + "' (#" +
         std::to_string(op_index) + ")";
}

Status VerifyTensor(const Tensor& t) {
  if (t.name.empty()) return Error("name: empty");
  const auto numel = CheckedNumElements(t.shape);
  if (!numel) {
    return Error("shape: " + FormatInts(t.shape) + " must have at most " +
                 std::to_string(kMaxRank) + " dims, each >= 1, and at most " +
                 std::to_string(kMaxElements) + " elements");
  }
  // int32 tensors may omit quant: raw integers (multipliers, shifts of lowered graphs).
  if (t.dtype == DType::kInt8 && !t.quant) {
    return Error("quant: required for " + std::string(DTypeName(t.dtype)) + " tensors");
  }
  if (t.quant) TF_RETURN_IF_ERROR(ValidateQuant(*t.quant, t.dtype, t.shape));
  if (t.data) {
    const int64_t want = *numel * DTypeSize(t.dtype);
    if (static_cast<int64_t>(t.data->size()) != want) {
      return Error("data: " + std::to_string(t.data->size()) + " bytes, expected " +
                   std::to_string(want) + " (" + std::to_string(*numel) + " x " +
                   std::string(DTypeName(t.dtype)) + ")");
    }
  }
  return OkStatus();
}

namespace {

// State pairs: positions in range, each input and output in one pair, the two tensors of
// one dtype, shape and quantization (the runtime copies the output's bytes into the input).
Status VerifyState(const Graph& g) {
  for (size_t k = 0; k < g.state.size(); ++k) {
    const auto [i, o] = g.state[k];
    const std::string where = "graph: " + Field("state", k) + ": ";
    if (i < 0 || static_cast<size_t>(i) >= g.inputs.size() || o < 0 ||
        static_cast<size_t>(o) >= g.outputs.size()) {
      return Error(where + "[" + std::to_string(i) + ", " + std::to_string(o) + "] names no input / output (the graph has " +
                   std::to_string(g.inputs.size()) + " inputs, " +
                   std::to_string(g.outputs.size()) + " outputs)");
    }
    for (size_t j = 0; j < k; ++j) {
      if (g.state[j].first == i || g.state[j].second == o) {
        return Error(where + "input " + std::to_string(i) + " or output " + std::to_string(o) +
                     " is already in pair " + std::to_string(j));
      }
    }
    const Tensor& a = g.tensor(g.inputs[static_cast<size_t>(i)]);
    const Tensor& b = g.tensor(g.outputs[static_cast<size_t>(o)]);
    if (a.dtype != b.dtype || a.shape != b.shape) {
      return Error(where + "input '" + a.name + "' " + Desc(a) + " and output '" + b.name +
                   "' " + Desc(b) + " differ; a state pair needs one dtype and shape");
    }
    if (a.quant != b.quant) {
      return Error(where + "input '" + a.name + "' and output '" + b.name +
                   "' are quantized differently; a state pair needs one scale and zero point "
                   "(tinyforge.export(..., state=...) shares them)");
    }
  }
  return OkStatus();
}

}  // namespace

Status Verify(const Graph& g) {
  if (g.tensors.size() > static_cast<size_t>(INT32_MAX)) {
    return Error("graph: tensors: too many tensors");
  }
  if (g.kind == GraphKind::kFloat) {
    for (size_t i = 0; i < g.tensors.size(); ++i) {
      // int32 without quant: indices (argmax), not a quantized tensor.
      const bool index = g.tensors[i].dtype == DType::kInt32 && !g.tensors[i].quant;
      if (IsQuantized(g.tensors[i].dtype) && !index) {
        return Error(TensorLabel(g, static_cast<TensorId>(i)) +
                     ": dtype: " + std::string(DTypeName(g.tensors[i].dtype)) +
                     " in a graph of kind \"float\" (quantized tensors need kind \"qdq\")");
      }
    }
  }
  std::unordered_set<std::string> names;
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const TensorId id = static_cast<TensorId>(i);
    Status s = VerifyTensor(g.tensors[i]);
    TF_RETURN_IF_ERROR_PREFIX(s, TensorLabel(g, id));
    if (!names.insert(g.tensors[i].name).second) {
      return Error(TensorLabel(g, id) + ": name: duplicate tensor name");
    }
  }
  for (const char* which : {"inputs", "outputs"}) {
    const auto& ids = which[0] == 'i' ? g.inputs : g.outputs;
    Status s = VerifyIds(g, which, ids);
    TF_RETURN_IF_ERROR_PREFIX(s, "graph");
  }
  std::vector<Def> def(g.tensors.size(), Def::kUndefined);
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    if (g.tensors[i].is_constant()) def[i] = Def::kConstant;
  }
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const TensorId t = g.inputs[i];
    if (g.tensor(t).is_constant()) {
      return Error("graph: " + Field("inputs", i) + ": " + TensorLabel(g, t) +
                   " is a constant; a graph input cannot have data");
    }
    def[static_cast<size_t>(t)] = Def::kInput;
  }
  std::unordered_set<std::string> op_names;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    Status s = VerifyOp(g, i, def);
    TF_RETURN_IF_ERROR_PREFIX(s, OpLabel(g, i));
    if (!op_names.insert(g.ops[i].name).second) {
      return Error(OpLabel(g, i) + ": name: duplicate op name");
    }
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const TensorId t = g.outputs[i];
    if (def[static_cast<size_t>(t)] == Def::kUndefined) {
      return Error("graph: " + Field("outputs", i) + ": " + TensorLabel(g, t) +
                   " is never produced");
    }
  }
  TF_RETURN_IF_ERROR(VerifyState(g));
  return internal::CheckGraphKind(g);
}

}  // namespace tinyforge::ir
