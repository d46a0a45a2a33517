// The graph IR: tensors, ops in execution order, graph inputs and outputs.
//
// Invariants of a *verified* graph (ir/verifier.h): every id in range; ops in topological
// order (each input is a graph input, a constant or an output of an earlier op); each
// tensor produced at most once; constants and graph inputs never produced; per-op input and
// output counts, dtypes and shapes as ir/shape_inference.h says; quant params valid.
// Passes may break the invariants while rewriting and must restore them before returning.
// Tensor ids are positions in `tensors`: removing tensors means renumbering (CompactTensors).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/op.h"
#include "ir/tensor.h"

namespace tinyforge::ir {

// float: no quantized tensors at all. qdq: PT2E converted graph (float ops between
// quantize/dequantize pairs, int8/int32 constants feeding dequantize). int8: a lowered
// program (docs/lowered-ops.md): only lowered ops, float only at the edges.
enum class GraphKind : uint8_t { kFloat, kQdq, kInt8 };
std::string_view GraphKindName(GraphKind kind);  // "float", "qdq", "int8"
std::optional<GraphKind> ParseGraphKind(std::string_view name);

struct Graph {
  std::string name;
  GraphKind kind = GraphKind::kFloat;
  std::string producer;  // free text, e.g. "tinyforge 0.1.0, torch 2.13.0"
  // Layout of the rank-4 activation tensors: `io_layout` for the graph's inputs and outputs
  // and the tensors joined to them by quantize/dequantize only, `layout` for every other
  // one. Both NCHW (PyTorch) until the layout pass (docs/passes.md).
  Layout layout = Layout::kNCHW;
  Layout io_layout = Layout::kNCHW;
  // Requantization rounding of the lowered int8 ops (docs/numerics.md). Graph files from
  // PyTorch default to single; the .tflite importer sets double (TFLM's).
  Rounding rounding = Rounding::kSingle;
  std::vector<Tensor> tensors;
  std::vector<Op> ops;  // execution order
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  // State kept across runs (docs/graph-format.md `state`): (input index, output index) pairs
  // of positions in `inputs` / `outputs`; after a run the output becomes the next run's
  // input. Positions, not tensor ids, so passes that replace an input or output keep them.
  std::vector<std::pair<int, int>> state;

  // Appends and returns the new id / a reference valid until the next AddOp.
  TensorId AddTensor(Tensor tensor);
  Op& AddOp(Op op);

  // Precondition: 0 <= id < tensors.size().
  const Tensor& tensor(TensorId id) const { return tensors[static_cast<size_t>(id)]; }
  Tensor& tensor(TensorId id) { return tensors[static_cast<size_t>(id)]; }

  std::optional<TensorId> FindTensor(std::string_view tensor_name) const;
  std::optional<size_t> FindOp(std::string_view op_name) const;
};

inline constexpr int kNoProducer = -1;

// For each tensor, the index of the op that outputs it, or kNoProducer. Ids out of range
// are ignored (call on verified graphs for meaningful answers).
std::vector<int> ComputeProducers(const Graph& g);
// For each tensor, the indices of the ops that read it (an op reading twice appears twice).
std::vector<std::vector<int>> ComputeConsumers(const Graph& g);

// Removes tensors that no op and no graph input/output refers to, keeping the relative order
// of the others, and renumbers all references. Returns old id -> new id (-1 if removed).
std::vector<TensorId> CompactTensors(Graph& g);

}  // namespace tinyforge::ir
