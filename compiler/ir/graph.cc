#include "ir/graph.h"

namespace tinyforge::ir {

std::string_view GraphKindName(GraphKind kind) {
  switch (kind) {
    case GraphKind::kFloat:
      return "float";
    case GraphKind::kQdq:
      return "qdq";
    case GraphKind::kInt8:
      return "int8";
  }
  return "?";
}

std::optional<GraphKind> ParseGraphKind(std::string_view name) {
  if (name == "float") return GraphKind::kFloat;
  if (name == "qdq") return GraphKind::kQdq;
  if (name == "int8") return GraphKind::kInt8;
  return std::nullopt;
}

TensorId Graph::AddTensor(Tensor tensor) {
  tensors.push_back(std::move(tensor));
  return static_cast<TensorId>(tensors.size() - 1);
}

Op& Graph::AddOp(Op op) {
  ops.push_back(std::move(op));
  return ops.back();
}

std::optional<TensorId> Graph::FindTensor(std::string_view tensor_name) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == tensor_name) return static_cast<TensorId>(i);
  }
  return std::nullopt;
}

std::optional<size_t> Graph::FindOp(std::string_view op_name) const {
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].name == op_name) return i;
  }
  return std::nullopt;
}

namespace {
bool InRange(const Graph& g, TensorId id) {
  return id >= 0 && static_cast<size_t>(id) < g.tensors.size();
}
}  // namespace

std::vector<int> ComputeProducers(const Graph& g) {
  std::vector<int> producer(g.tensors.size(), kNoProducer);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (TensorId t : g.ops[i].outputs) {
      if (InRange(g, t) && producer[static_cast<size_t>(t)] == kNoProducer) {
        producer[static_cast<size_t>(t)] = static_cast<int>(i);
      }
    }
  }
  return producer;
}

std::vector<std::vector<int>> ComputeConsumers(const Graph& g) {
  std::vector<std::vector<int>> consumers(g.tensors.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (TensorId t : g.ops[i].inputs) {
      if (InRange(g, t)) consumers[static_cast<size_t>(t)].push_back(static_cast<int>(i));
    }
  }
  return consumers;
}

std::vector<TensorId> CompactTensors(Graph& g) {
  std::vector<bool> used(g.tensors.size(), false);
  auto mark = [&](TensorId t) {
    if (InRange(g, t)) used[static_cast<size_t>(t)] = true;
  };
  for (const Op& op : g.ops) {
    for (TensorId t : op.inputs) mark(t);
    for (TensorId t : op.outputs) mark(t);
  }
  for (TensorId t : g.inputs) mark(t);
  for (TensorId t : g.outputs) mark(t);

  std::vector<TensorId> remap(g.tensors.size(), -1);
  std::vector<Tensor> kept;
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    if (!used[i]) continue;
    remap[i] = static_cast<TensorId>(kept.size());
    kept.push_back(std::move(g.tensors[i]));
  }
  g.tensors = std::move(kept);
  auto fix = [&](std::vector<TensorId>& ids) {
    for (TensorId& t : ids) t = (t >= 0 && static_cast<size_t>(t) < remap.size()) ? remap[t] : t;
  };
  for (Op& op : g.ops) {
    fix(op.inputs);
    fix(op.outputs);
  }
  fix(g.inputs);
  fix(g.outputs);
  return remap;
}

}  // namespace tinyforge::ir
