// Verifier rules of lowered (int8) graphs: the dtypes and quantization each lowered op
// needs from its tensors, and what a graph of each kind may contain (docs/lowered-ops.md).
#include <string>

#include "ir/shape_inference_internal.h"
#include "ir/verifier.h"
#include "support/text.h"

namespace tinyforge::ir::internal {
namespace {

std::string Field(const char* list, size_t i) {
  return std::string(list) + "[" + std::to_string(i) + "]";
}

std::string Desc(const Tensor& t) { return std::string(DTypeName(t.dtype)) + FormatInts(t.shape); }

Status Want(const char* list, size_t i, const Tensor& t, bool ok, const std::string& what) {
  if (ok) return OkStatus();
  return Error(Field(list, i) + ": " + Desc(t) + " '" + t.name + "' must be " + what);
}

bool PerTensorInt8(const Tensor& t) {
  return t.dtype == DType::kInt8 && t.quant && !t.quant->per_channel();
}

// An int8 activation: per-tensor quantization.
Status Act(const char* list, size_t i, const Tensor& t) {
  return Want(list, i, t, PerTensorInt8(t), "int8 with per-tensor quantization");
}

bool SameQuant(const Tensor& a, const Tensor& b) {
  return a.quant && b.quant && a.quant->scale == b.quant->scale &&
         a.quant->zero_point == b.quant->zero_point;
}

// Symmetric int8 weights, per tensor or per channel along `channel_axis`.
Status Weights(size_t i, const Tensor& t, int64_t channel_axis) {
  bool ok = t.dtype == DType::kInt8 && t.quant;
  if (ok && t.quant->per_channel()) ok = *t.quant->axis == channel_axis;
  if (ok) {
    for (int64_t zp : t.quant->zero_point) ok = ok && zp == 0;
  }
  return Want("inputs", i, t, ok,
              "int8 weights with zero point 0, per tensor or per channel on axis " +
                  std::to_string(channel_axis));
}

Status Int32(const char* list, size_t i, const Tensor& t, const char* what) {
  return Want(list, i, t, t.dtype == DType::kInt32, std::string("int32 (") + what + ")");
}

Status FixedOutput(const Tensor& y, double scale, int64_t zp) {
  const bool ok = PerTensorInt8(y) && y.quant->scale[0] == scale && y.quant->zero_point[0] == zp;
  return Want("outputs", 0, y, ok,
              "int8 with scale " + FormatDouble(scale) + " and zero point " + std::to_string(zp) +
                  " (TFLite's fixed output parameters)");
}

}  // namespace

Status CheckLoweredDTypes(const Graph& g, const Op& op) {
  auto in = [&](size_t i) -> const Tensor& { return g.tensor(op.inputs[i]); };
  const Tensor& y = g.tensor(op.outputs[0]);
  // Trailing multiplier/shift inputs after the `base` ones.
  auto requant = [&](size_t base) -> Status {
    for (size_t i = base; i < op.inputs.size(); ++i) {
      TF_RETURN_IF_ERROR(Int32("inputs", i, in(i), i == base ? "multiplier" : "shift"));
    }
    return OkStatus();
  };
  switch (op.type) {
    case OpType::kQConv2d:
    case OpType::kQDwConv2d:
    case OpType::kQFc: {
      TF_RETURN_IF_ERROR(Act("inputs", 0, in(0)));
      int64_t axis = 0;
      if (op.type == OpType::kQDwConv2d &&
          op.attrs_as<QDwConv2dAttrs>().layout == Layout::kNHWC) {
        axis = 3;  // 1HWC
      }
      TF_RETURN_IF_ERROR(Weights(1, in(1), axis));
      TF_RETURN_IF_ERROR(Int32("inputs", 2, in(2), "bias"));
      TF_RETURN_IF_ERROR(requant(3));
      return Act("outputs", 0, y);
    }
    case OpType::kQAvgPool2d:
    case OpType::kQMaxPool2d:
    case OpType::kQPad:
      TF_RETURN_IF_ERROR(Act("inputs", 0, in(0)));
      TF_RETURN_IF_ERROR(Act("outputs", 0, y));
      return Want("outputs", 0, y, SameQuant(in(0), y),
                  "quantized like the input (TFLite: no rescaling in " +
                      std::string(OpTypeName(op.type)) + ")");
    case OpType::kQAdd:
    case OpType::kQSub:
    case OpType::kQMul:
    case OpType::kQSquaredDifference:
    case OpType::kQPrelu:
    case OpType::kQBmm:
      TF_RETURN_IF_ERROR(Act("inputs", 0, in(0)));
      TF_RETURN_IF_ERROR(Act("inputs", 1, in(1)));
      TF_RETURN_IF_ERROR(requant(2));
      return Act("outputs", 0, y);
    case OpType::kQMaximum:
    case OpType::kQMinimum:
      // TFLite's MAXIMUM / MINIMUM compare the raw int8 values: one set of parameters.
      for (size_t i = 0; i < 2; ++i) {
        TF_RETURN_IF_ERROR(Act("inputs", i, in(i)));
        TF_RETURN_IF_ERROR(Want("inputs", i, in(i), SameQuant(in(i), y),
                                "quantized like the output (max/min compare raw int8 values)"));
      }
      return Act("outputs", 0, y);
    case OpType::kQReduceMax:
      TF_RETURN_IF_ERROR(Act("inputs", 0, in(0)));
      TF_RETURN_IF_ERROR(Want("inputs", 0, in(0), SameQuant(in(0), y),
                              "quantized like the output (REDUCE_MAX compares raw int8 values)"));
      return Act("outputs", 0, y);
    case OpType::kQMean:
    case OpType::kQSum:
    case OpType::kRequantize:
    case OpType::kQSoftmax:
      TF_RETURN_IF_ERROR(Act("inputs", 0, in(0)));
      TF_RETURN_IF_ERROR(requant(1));
      if (op.type == OpType::kQSoftmax) return FixedOutput(y, 1.0 / 256.0, -128);
      return Act("outputs", 0, y);
    case OpType::kQLayerNorm:
      // scale and bias hold weight, bias and the output's quantization (kernels/layernorm).
      TF_RETURN_IF_ERROR(Act("inputs", 0, in(0)));
      for (size_t i = 1; i < 3; ++i) {
        TF_RETURN_IF_ERROR(Want("inputs", i, in(i), in(i).dtype == DType::kInt32 &&
                                                        in(i).is_constant(),
                                "an int32 constant"));
      }
      return Act("outputs", 0, y);
    case OpType::kQLstm:
      TF_RETURN_IF_ERROR(Act("inputs", 0, in(0)));
      for (size_t i = 1; i < 4; ++i) {
        const DType want = i == 3 ? DType::kInt32 : DType::kInt8;
        TF_RETURN_IF_ERROR(Want("inputs", i, in(i), in(i).dtype == want && in(i).is_constant(),
                                i == 3 ? "an int32 constant" : "an int8 constant"));
      }
      return Act("outputs", 0, y);
    case OpType::kQLut:
      // The table holds the whole function, quantization included: any output parameters.
      TF_RETURN_IF_ERROR(Act("inputs", 0, in(0)));
      TF_RETURN_IF_ERROR(Want("inputs", 1, in(1), in(1).dtype == DType::kInt8 &&
                                                      in(1).is_constant(),
                              "an int8 constant (the table)"));
      return Act("outputs", 0, y);
    case OpType::kQConcat:
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        TF_RETURN_IF_ERROR(Act("inputs", i, in(i)));
        TF_RETURN_IF_ERROR(Want("inputs", i, in(i), SameQuant(in(i), y),
                                "quantized like the output (a requantize op rescales it)"));
      }
      return Act("outputs", 0, y);
    case OpType::kFConv2d:
    case OpType::kFDwConv2d:
    case OpType::kFFc:
    case OpType::kFAvgPool2d:
    case OpType::kFMaxPool2d:
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        TF_RETURN_IF_ERROR(Want("inputs", i, in(i), in(i).dtype == DType::kFloat32, "float32"));
      }
      for (size_t i = 1; i < op.inputs.size(); ++i) {
        TF_RETURN_IF_ERROR(Want("inputs", i, in(i), in(i).is_constant(), "a constant"));
      }
      return Want("outputs", 0, y, y.dtype == DType::kFloat32, "float32");
    default:
      return Error("not a lowered op type");
  }
}

// Whether float tensor `t` is written or read by a float fallback op (so a quantize or
// dequantize on it is interior, not an edge).
static bool FloatSide(const Graph& g, TensorId t) {
  for (const Op& op : g.ops) {
    if (!IsFloatFallbackOp(op.type)) continue;
    for (TensorId x : op.inputs) {
      if (x == t) return true;
    }
    if (op.outputs[0] == t) return true;
  }
  return false;
}

Status CheckGraphKind(const Graph& g) {
  if (g.kind != GraphKind::kInt8) {
    for (size_t i = 0; i < g.ops.size(); ++i) {
      if (g.ops[i].type > OpType::kDequantize) {
        return Error(OpLabel(g, i) + ": type: " + std::string(OpTypeName(g.ops[i].type)) +
                     " is a lowered op; it needs a graph of kind \"int8\", not \"" +
                     std::string(GraphKindName(g.kind)) + "\"");
      }
    }
    return OkStatus();
  }
  // int8: lowered ops only; float only at the edges (graph input -> quantize, dequantize ->
  // graph output) and around the float fallback ops (dequantize -> unary / binary / cumsum
  // -> quantize, docs/decisions.md 47); spatial ops in the graph's layout.
  std::vector<bool> is_input(g.tensors.size(), false), is_output(g.tensors.size(), false);
  for (TensorId t : g.inputs) is_input[static_cast<size_t>(t)] = true;
  for (TensorId t : g.outputs) is_output[static_cast<size_t>(t)] = true;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    auto fail = [&](const std::string& what) { return Error(OpLabel(g, i) + ": " + what); };
    if (!IsLoweredOp(op.type)) {
      return fail("type: " + std::string(OpTypeName(op.type)) +
                  " is not a lowered op (a graph of kind \"int8\" holds only the ops of " +
                  "docs/lowered-ops.md)");
    }
    if (op.type == OpType::kQuantize || op.type == OpType::kDequantize) {
      const bool q = op.type == OpType::kQuantize;
      const TensorId edge = q ? op.inputs[0] : op.outputs[0];
      const Tensor& side = g.tensor(q ? op.outputs[0] : op.inputs[0]);
      if (!(q ? is_input : is_output)[static_cast<size_t>(edge)] && !FloatSide(g, edge)) {
        return fail(std::string(q ? "inputs[0]" : "outputs[0]") + ": " +
                    std::string(OpTypeName(op.type)) + " must " +
                    (q ? "read a graph input" : "write a graph output") +
                    " or a float op (float stays at the edges of an int8 graph and around " +
                    "its float fallback ops)");
      }
      if (!PerTensorInt8(side)) {
        return fail(std::string(q ? "outputs[0]" : "inputs[0]") +
                    ": must be int8 with per-tensor quantization");
      }
      continue;
    }
    if (IsFloatFallbackOp(op.type)) continue;  // float32 (CheckDTypes)
    // A float model's ops (float32 only), and data movement of their float32 tensors.
    if (IsFloatModelOp(op.type)) {
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        if (g.tensor(op.inputs[k]).dtype != DType::kFloat32) {
          return fail(Field("inputs", k) + ": " + std::string(OpTypeName(op.type)) +
                      " in a graph of kind \"int8\" is a float model's op: float32 only");
        }
      }
      continue;  // (its output: float32, CheckDTypes)
    }
    const bool float_data = IsFloatLayerOp(op.type) ||
                            (!op.inputs.empty() &&
                             g.tensor(op.inputs[0]).dtype == DType::kFloat32 &&
                             (op.type == OpType::kReshape || op.type == OpType::kTranspose ||
                              op.type == OpType::kSlice || op.type == OpType::kResize ||
                              op.type == OpType::kGather));
    for (size_t k = 0; k < op.outputs.size() && !float_data; ++k) {
      if (g.tensor(op.outputs[k]).dtype == DType::kFloat32) {
        return fail(Field("outputs", k) + ": float32 output in a graph of kind \"int8\"");
      }
    }
    std::optional<Layout> layout;
    if (op.type == OpType::kQConv2d) layout = op.attrs_as<QConv2dAttrs>().layout;
    if (op.type == OpType::kQDwConv2d) layout = op.attrs_as<QDwConv2dAttrs>().layout;
    if (op.type == OpType::kQAvgPool2d || op.type == OpType::kQMaxPool2d) {
      layout = op.attrs_as<QPool2dAttrs>().layout;
    }
    if (op.type == OpType::kFConv2d || op.type == OpType::kFDwConv2d) {
      layout = op.attrs_as<FConv2dAttrs>().layout;
    }
    if (op.type == OpType::kFAvgPool2d || op.type == OpType::kFMaxPool2d) {
      layout = op.attrs_as<FPool2dAttrs>().layout;
    }
    if (layout && *layout != g.layout) {
      return fail("attrs.layout: " + std::string(LayoutName(*layout)) +
                  " differs from the graph's layout " + std::string(LayoutName(g.layout)));
    }
  }
  return OkStatus();
}

}  // namespace tinyforge::ir::internal
