// io-edges: with --io=int8 the program takes and returns int8 tensors: the quantize at each
// graph input and the dequantize at each graph output are removed, and the graph's inputs
// and outputs become their int8 tensors (named like the QDQ graph's, e.g. "x.q"). With
// --io=float they stay (and run as TFLite Micro's QUANTIZE / DEQUANTIZE kernels). An input
// or output a float fallback op reads or writes directly stays float either way, as do a
// float model's (no quantize, no dequantize: fold-float).
#include <algorithm>

#include "passes/pass.h"
#include "passes/util.h"

namespace tinyforge::passes {

Status IoEdges(ir::Graph& g, const PassOptions& options) {
  if (options.io == IoType::kFloat) return OkStatus();
  if (g.kind != ir::GraphKind::kInt8) {
    return Error("needs a lowered graph (kind int8): run fold-qdq first");
  }
  const auto consumers = ir::ComputeConsumers(g);
  const auto producers = ir::ComputeProducers(g);
  std::vector<bool> drop(g.ops.size(), false);
  std::vector<std::pair<ir::TensorId, ir::TensorId>> replaced;  // float input -> int8 input
  for (ir::TensorId& in : g.inputs) {
    if (g.tensor(in).dtype != ir::DType::kFloat32) continue;
    const auto& readers = consumers[static_cast<size_t>(in)];
    if (readers.empty()) continue;
    // An input a float fallback op reads stays float (its quantize readers stay too).
    // So does an input of a float model (fold-float): no quantize reads it.
    bool float_reader = false, quantized = false;
    for (int r : readers) {
      const ir::OpType t = g.ops[static_cast<size_t>(r)].type;
      float_reader = float_reader || ir::IsFloatFallbackOp(t);
      quantized = quantized || t == ir::OpType::kQuantize;
    }
    if (float_reader || !quantized) continue;
    const ir::TensorId q = g.ops[static_cast<size_t>(readers[0])].outputs[0];
    for (int r : readers) {
      const ir::Op& op = g.ops[static_cast<size_t>(r)];
      if (op.type != ir::OpType::kQuantize || g.tensor(op.outputs[0]).quant != g.tensor(q).quant) {
        return OpError(g, static_cast<size_t>(r),
                       "graph input '" + g.tensor(in).name + "' is read by something other " +
                           "than one kind of quantize; cannot make the input int8");
      }
      drop[static_cast<size_t>(r)] = true;
      ReplaceUses(g, op.outputs[0], q);
    }
    replaced.emplace_back(in, q);
    in = q;
  }
  for (ir::TensorId& out : g.outputs) {
    for (const auto& [f, q] : replaced) {
      if (out == f) out = q;  // a model that returns its input as it is
    }
    const int p = producers[static_cast<size_t>(out)];
    if (p == ir::kNoProducer || g.ops[static_cast<size_t>(p)].type != ir::OpType::kDequantize) {
      continue;
    }
    drop[static_cast<size_t>(p)] = true;
    out = g.ops[static_cast<size_t>(p)].inputs[0];
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (g.outputs[i] == g.outputs[j]) {
        return Error("graph outputs " + std::to_string(j) + " and " + std::to_string(i) +
                     " dequantize the same int8 tensor; --io=int8 would merge them");
      }
    }
  }
  std::vector<ir::Op> kept;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (!drop[i]) kept.push_back(std::move(g.ops[i]));
  }
  g.ops = std::move(kept);
  ir::CompactTensors(g);
  return OkStatus();
}

}  // namespace tinyforge::passes
