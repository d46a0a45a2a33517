#include "passes/util.h"

#include <algorithm>

#include "exec/ref_ops.h"
#include "ir/verifier.h"

namespace tinyforge::passes {

std::string UniqueTensorName(const ir::Graph& g, const std::string& base) {
  return TensorNames({&g.tensors}).Unique(base);
}

std::string UniqueOpName(const ir::Graph& g, const std::string& base) {
  if (!g.FindOp(base)) return base;
  for (int i = 1;; ++i) {
    std::string n = base + "." + std::to_string(i);
    if (!g.FindOp(n)) return n;
  }
}

ir::TensorId AddConstant(ir::Graph& g, TensorNames& names, const std::string& name,
                         ir::DType dtype, ir::Shape shape, std::vector<uint8_t> bytes,
                         std::optional<ir::QuantParams> quant) {
  ir::Tensor t;
  t.name = names.Unique(name);
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.quant = std::move(quant);
  t.data = std::move(bytes);
  return g.AddTensor(std::move(t));
}

ir::TensorId AddInt32Constant(ir::Graph& g, TensorNames& names, const std::string& name,
                              std::span<const int32_t> values) {
  return AddConstant(g, names, name, ir::DType::kInt32, {static_cast<int64_t>(values.size())},
                     Bytes(values));
}

void ReplaceUses(ir::Graph& g, ir::TensorId from, ir::TensorId to) {
  for (ir::Op& op : g.ops) {
    for (ir::TensorId& t : op.inputs) {
      if (t == from) t = to;
    }
  }
  for (ir::TensorId& t : g.outputs) {
    if (t == from) t = to;
  }
}

size_t RemoveDeadCode(ir::Graph& g) {
  std::vector<bool> live(g.tensors.size(), false);
  for (ir::TensorId t : g.outputs) live[static_cast<size_t>(t)] = true;
  std::vector<bool> keep(g.ops.size(), false);
  for (size_t i = g.ops.size(); i-- > 0;) {
    const ir::Op& op = g.ops[i];
    for (ir::TensorId t : op.outputs) keep[i] = keep[i] || live[static_cast<size_t>(t)];
    if (!keep[i]) continue;
    for (ir::TensorId t : op.inputs) live[static_cast<size_t>(t)] = true;
  }
  std::vector<ir::Op> ops;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (keep[i]) ops.push_back(std::move(g.ops[i]));
  }
  const size_t removed = g.ops.size() - ops.size();
  g.ops = std::move(ops);
  ir::CompactTensors(g);
  return removed;
}

ir::Shape PermuteShape(const ir::Shape& s, std::span<const int64_t> perm) {
  ir::Shape out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = s[static_cast<size_t>(perm[i])];
  return out;
}

void PermuteConstant(ir::Tensor& t, std::span<const int64_t> perm) {
  auto x = exec::HostTensor::FromBytes(t.dtype, t.shape, *t.data).value();
  exec::HostTensor y(t.dtype, PermuteShape(t.shape, perm));
  exec::Transpose(perm, x, y);
  t.shape = y.shape();
  t.data = y.ToBytes();
}

std::vector<bool> EdgeTensors(const ir::Graph& g) {
  std::vector<bool> at_edge(g.tensors.size(), false);
  for (ir::TensorId t : g.inputs) at_edge[static_cast<size_t>(t)] = true;
  for (ir::TensorId t : g.outputs) at_edge[static_cast<size_t>(t)] = true;
  for (const ir::Op& op : g.ops) {
    if (op.type == ir::OpType::kQuantize && at_edge[static_cast<size_t>(op.inputs[0])]) {
      at_edge[static_cast<size_t>(op.outputs[0])] = true;
    }
  }
  for (auto it = g.ops.rbegin(); it != g.ops.rend(); ++it) {
    if (it->type == ir::OpType::kDequantize && at_edge[static_cast<size_t>(it->outputs[0])]) {
      at_edge[static_cast<size_t>(it->inputs[0])] = true;
    }
  }
  return at_edge;
}

std::optional<ir::Layout> TensorLayout(const ir::Graph& g, const std::vector<bool>& edge,
                                       ir::TensorId t) {
  const ir::Tensor& desc = g.tensor(t);
  if (desc.shape.size() != 4 || desc.is_constant()) return std::nullopt;
  if (desc.pytorch_order) return ir::Layout::kNCHW;
  return edge[static_cast<size_t>(t)] ? g.io_layout : g.layout;
}

Error OpError(const ir::Graph& g, size_t index, const std::string& what) {
  return Error(ir::OpLabel(g, index) + ": " + what);
}

}  // namespace tinyforge::passes
