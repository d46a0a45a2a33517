// remove-noops: ops that move no data disappear by aliasing tensors instead of copying.
//  - transpose of a transpose: one transpose with the composed permutation;
//  - transpose that moves only size-1 dims (C order unchanged): a reshape;
//  - reshape of a reshape: one reshape;
//  - identity transpose, same-shape reshape, requantize with equal quantization and a
//    clamp that clamps nothing, single-input qconcat: removed (readers read the input).
// What stays is data movement that is real (edge transposes of an NCHW program) and
// reshape views: a reshape's output aliases its input's bytes, the planner gives both one
// buffer and the runtime does nothing (docs/lowered-ops.md).
#include <algorithm>
#include <numeric>

#include "passes/pass.h"
#include "passes/util.h"

namespace tinyforge::passes {
namespace {

using ir::OpType;

bool SameQuant(const ir::Tensor& a, const ir::Tensor& b) {
  return a.dtype == b.dtype && a.quant == b.quant;
}

// True if permuting `shape` by `perm` keeps the C-order sequence of elements.
bool PreservesOrder(const ir::Shape& shape, const std::vector<int64_t>& perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (shape[static_cast<size_t>(p)] == 1) continue;
    if (p < last) return false;
    last = p;
  }
  return true;
}

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// The graph being simplified, with what the rewrites need kept current: removed ops stay
// in g.ops (marked) until the end, so indices hold; `readers` may list an op that no longer
// reads the tensor (harmless: replacing finds nothing there).
struct State {
  ir::Graph& g;
  std::vector<int> producer;
  std::vector<std::vector<int>> readers;
  std::vector<bool> removed;

  // Every read of `from` (op inputs, graph outputs) reads `to` instead.
  void ReplaceUses(ir::TensorId from, ir::TensorId to) {
    for (int r : readers[static_cast<size_t>(from)]) {
      if (removed[static_cast<size_t>(r)]) continue;
      for (ir::TensorId& t : g.ops[static_cast<size_t>(r)].inputs) {
        if (t == from) t = to;
      }
      readers[static_cast<size_t>(to)].push_back(r);
    }
    readers[static_cast<size_t>(from)].clear();
    for (ir::TensorId& t : g.outputs) {
      if (t == from) t = to;
    }
  }

  // Removes op i, whose single input x and output y hold the same values (shape, dtype and
  // quantization equal), keeping the later name where it matters: when y is a graph output,
  // x's producer writes y (and x's readers read y); otherwise y's readers read x. Returns
  // false (and changes nothing) when both x and y are graph inputs/outputs.
  bool AliasAway(size_t i) {
    const ir::TensorId x = g.ops[i].inputs[0];
    const ir::TensorId y = g.ops[i].outputs[0];
    auto contains = [](const std::vector<ir::TensorId>& v, ir::TensorId t) {
      return std::find(v.begin(), v.end(), t) != v.end();
    };
    const bool x_edge = contains(g.inputs, x) || contains(g.outputs, x) || g.tensor(x).is_constant();
    const bool y_out = contains(g.outputs, y);
    if (y_out && x_edge) return false;
    removed[i] = true;
    producer[static_cast<size_t>(y)] = ir::kNoProducer;
    if (y_out) {
      const int p = producer[static_cast<size_t>(x)];
      if (p != ir::kNoProducer) {
        for (ir::TensorId& t : g.ops[static_cast<size_t>(p)].outputs) {
          if (t == x) t = y;
        }
        producer[static_cast<size_t>(y)] = p;
        producer[static_cast<size_t>(x)] = ir::kNoProducer;
      }
      ReplaceUses(x, y);
    } else {
      ReplaceUses(y, x);
    }
    return true;
  }

  // op i now reads `t` as its first input.
  void SetInput(size_t i, ir::TensorId t) {
    g.ops[i].inputs[0] = t;
    readers[static_cast<size_t>(t)].push_back(static_cast<int>(i));
  }
};

// One rewrite of op i, or false.
bool Simplify(State& st, size_t i) {
  ir::Graph& g = st.g;
  ir::Op& op = g.ops[i];
  const ir::Tensor& x = g.tensor(op.inputs[0]);
  const ir::Tensor& y = g.tensor(op.outputs[0]);
  const int p = st.producer[static_cast<size_t>(op.inputs[0])];
  const ir::Op* prev = p == ir::kNoProducer ? nullptr : &g.ops[static_cast<size_t>(p)];
  switch (op.type) {
    case OpType::kTranspose: {
      auto& perm = op.attrs_as<ir::TransposeAttrs>().perm;
      if (prev && prev->type == OpType::kTranspose) {
        const auto& first = prev->attrs_as<ir::TransposeAttrs>().perm;
        std::vector<int64_t> composed(perm.size());
        for (size_t d = 0; d < perm.size(); ++d) composed[d] = first[static_cast<size_t>(perm[d])];
        st.SetInput(i, prev->inputs[0]);
        perm = composed;
        return true;
      }
      if (IsIdentity(perm)) return st.AliasAway(i);
      if (PreservesOrder(x.shape, perm)) {
        op.type = OpType::kReshape;
        op.attrs = ir::ReshapeAttrs{y.shape};
        return true;
      }
      return false;
    }
    case OpType::kReshape:
      if (prev && prev->type == OpType::kReshape) {
        st.SetInput(i, prev->inputs[0]);
        return true;
      }
      if (x.shape == y.shape) return st.AliasAway(i);
      op.attrs_as<ir::ReshapeAttrs>().shape = y.shape;  // no -1 left
      return false;
    case OpType::kRequantize: {
      const auto& a = op.attrs_as<ir::ClampAttrs>();
      if (SameQuant(x, y) && a.act_min <= -128 && a.act_max >= 127) return st.AliasAway(i);
      return false;
    }
    case OpType::kQConcat:
      if (op.inputs.size() == 1 && SameQuant(x, y)) return st.AliasAway(i);
      return false;
    default:
      return false;
  }
}

}  // namespace

// One pass in op order, each op rewritten until no rule applies (O(ops + uses)). A rewrite
// of op i changes only op i, the readers of its output and (aliasing a graph output) the
// output tensor of its input's producer, none of which decides whether a rule applies to
// an earlier op: so this does what restarting from the first op after every rewrite did.
Status RemoveNoops(ir::Graph& g, const PassOptions&) {
  State st{g, ir::ComputeProducers(g), ir::ComputeConsumers(g),
           std::vector<bool>(g.ops.size(), false)};
  for (size_t i = 0; i < g.ops.size(); ++i) {
    while (!st.removed[i] && Simplify(st, i)) {
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (st.removed[i]) continue;
    if (kept != i) g.ops[kept] = std::move(g.ops[i]);  // (no self-move)
    ++kept;
  }
  g.ops.resize(kept);
  RemoveDeadCode(g);  // transposes/reshapes whose only reader now reads around them
  return OkStatus();
}

}  // namespace tinyforge::passes
