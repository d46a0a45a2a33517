// The first step of the layout pass: rank-3 activations [N, C, L] between Conv1d layers
// become [N, C, 1, L]. PyTorch's Conv1d reaches the compiler as reshape [N, C, L] ->
// [N, C, 1, L], a qconv2d / qdwconv2d, reshape back; the layout pass makes the rank-4
// tensors NHWC ([N, 1, L, C]) while rank-3 ones keep PyTorch's order, so every op between
// two Conv1d layers that is not a reshape (a pad of a causal TCN, GLU's slices and mul, an
// activation the compiler could not fuse) used to sit between a transpose to NCL and one
// back: 7 % of a TCN's or a Conformer block's instructions.
//
// Here the rank-3 tensors joined by ops that mean the same on [N, C, 1, L] (elementwise
// ops, pads, slices, concats, reductions: their attributes renumbered) are lifted as a
// group, when the group touches more reshapes of the Conv1d form ([a, b, c] <-> [a, b, 1, c],
// which become identities) than it needs new reshapes at its edges (a graph input or output,
// a tensor written or read by another op: each costs the transpose one of those saved).
// Inserting a size-1 dim does not move an element, so reshapes reading or writing a lifted
// tensor keep their meaning (a reshape writing one gets the lifted shape).
#include <algorithm>
#include <map>
#include <numeric>

#include "ir/shape_inference.h"
#include "passes/pass.h"
#include "passes/util.h"

namespace tinyforge::passes {
namespace {

using ir::OpType;
using ir::TensorId;

ir::Shape Lifted(const ir::Shape& s) { return {s[0], s[1], 1, s[2]}; }

// How many of op's first inputs are operands of the same rank as its output (the others
// are tables, multipliers, shifts); 0: the op cannot be lifted.
size_t Operands(const ir::Op& op) {
  switch (op.type) {
    case OpType::kQLut:
    case OpType::kRequantize:
    case OpType::kUnary:
    case OpType::kQPad:
    case OpType::kPad:
    case OpType::kSlice:
    case OpType::kQMean:
    case OpType::kQSum:
    case OpType::kQReduceMax:
    case OpType::kMean:
    case OpType::kSum:
    case OpType::kAmax:
      return 1;
    case OpType::kQAdd:
    case OpType::kQSub:
    case OpType::kQMul:
    case OpType::kQMaximum:
    case OpType::kQMinimum:
    case OpType::kQSquaredDifference:
    case OpType::kQPrelu:
    case OpType::kBinary:
      return 2;
    case OpType::kQConcat:
    case OpType::kCat:
      return op.inputs.size();
    default:
      return 0;
  }
}

bool Reduction(OpType t) {
  return t == OpType::kQMean || t == OpType::kQSum || t == OpType::kQReduceMax ||
         t == OpType::kMean || t == OpType::kSum || t == OpType::kAmax;
}

struct Lifter {
  ir::Graph& g;
  std::vector<std::vector<int>> consumers;
  std::vector<int> producer;
  std::vector<bool> graph_in, graph_out;

  bool Rank3Activation(TensorId t) const {
    const ir::Tensor& d = g.tensor(t);
    return d.shape.size() == 3 && !d.is_constant();
  }

  // Whether op means the same with its rank-3 activations lifted.
  bool Liftable(const ir::Op& op) const {
    const size_t n = Operands(op);
    if (n == 0 || op.outputs.size() != 1) return false;
    const bool reduce = Reduction(op.type);
    if (!reduce && !Rank3Activation(op.outputs[0])) return false;
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      const ir::Tensor& x = g.tensor(op.inputs[i]);
      if (x.is_constant()) {
        // Broadcast constants of binary ops get the lifted rank; per-channel ones stay.
        if (n != 2 || x.shape.size() > 3 || (x.quant && x.quant->per_channel())) return false;
        continue;
      }
      if (x.shape.size() != 3) return false;
      any = true;
    }
    return any;
  }

  // A reshape of the Conv1d form between rank-3 t and a rank-4 tensor.
  bool Conv1dReshape(const ir::Op& op, TensorId t) const {
    if (op.type != OpType::kReshape) return false;
    const TensorId other = op.inputs[0] == t ? op.outputs[0] : op.inputs[0];
    return g.tensor(other).shape == Lifted(g.tensor(t).shape);
  }
};

}  // namespace

Status Lift1d(ir::Graph& g) {
  const size_t n = g.tensors.size();
  Lifter l{g, ir::ComputeConsumers(g), std::vector<int>(n, -1), std::vector<bool>(n, false),
           std::vector<bool>(n, false)};
  for (size_t k = 0; k < g.ops.size(); ++k) {
    for (TensorId t : g.ops[k].outputs) l.producer[static_cast<size_t>(t)] = static_cast<int>(k);
  }
  for (TensorId t : g.inputs) l.graph_in[static_cast<size_t>(t)] = true;
  for (TensorId t : g.outputs) l.graph_out[static_cast<size_t>(t)] = true;
  std::vector<bool> liftable(g.ops.size(), false);
  for (size_t k = 0; k < g.ops.size(); ++k) liftable[k] = l.Liftable(g.ops[k]);

  // Groups: rank-3 activations joined by liftable ops.
  std::vector<size_t> root(n);
  std::iota(root.begin(), root.end(), size_t{0});
  auto find = [&](size_t t) {
    while (root[t] != t) t = root[t] = root[root[t]];
    return t;
  };
  std::vector<bool> member(n, false);
  for (size_t k = 0; k < g.ops.size(); ++k) {
    if (!liftable[k]) continue;
    const ir::Op& op = g.ops[k];
    std::vector<size_t> ts;
    for (size_t i = 0; i < Operands(op); ++i) {
      if (l.Rank3Activation(op.inputs[i])) ts.push_back(static_cast<size_t>(op.inputs[i]));
    }
    if (l.Rank3Activation(op.outputs[0])) ts.push_back(static_cast<size_t>(op.outputs[0]));
    for (size_t t : ts) {
      member[t] = true;
      root[find(t)] = find(ts[0]);
    }
  }
  // Per tensor: enters (needs a reshape up after its producer), leaves (a reshape down for
  // other readers and the graph's outputs); per group: reshapes saved minus reshapes added.
  std::vector<bool> enters(n, false), leaves(n, false);
  std::map<size_t, int> gain;
  for (size_t t = 0; t < n; ++t) {
    if (!member[t]) continue;
    int& v = gain[find(t)];
    // A boundary costs a transpose only where NHWC moves elements: C > 1 and L > 1.
    const ir::Shape& ts = g.tensors[t].shape;
    const int cost = ts[1] > 1 && ts[2] > 1 ? 1 : 0;
    const int p = l.producer[t];
    if (p < 0 || (!liftable[static_cast<size_t>(p)] && g.ops[static_cast<size_t>(p)].type != OpType::kReshape)) {
      enters[t] = true;
      v -= cost;
    } else if (g.ops[static_cast<size_t>(p)].type == OpType::kReshape) {
      v += l.Conv1dReshape(g.ops[static_cast<size_t>(p)], static_cast<TensorId>(t)) ? cost : -cost;
    }
    bool other_reader = l.graph_out[t];
    for (int c : l.consumers[t]) {
      const ir::Op& op = g.ops[static_cast<size_t>(c)];
      if (op.type == OpType::kReshape) {
        v += l.Conv1dReshape(op, static_cast<TensorId>(t)) ? cost : -cost;
      } else if (!liftable[static_cast<size_t>(c)]) {
        other_reader = true;
      } else {
        // A liftable op reading t as a table or multiplier, not as an operand: keep it.
        const size_t ops_n = Operands(op);
        for (size_t i = ops_n; i < op.inputs.size(); ++i) {
          if (op.inputs[i] == static_cast<TensorId>(t)) other_reader = true;
        }
      }
    }
    if (other_reader && !enters[t]) {
      leaves[t] = true;
      v -= cost;
    }
  }
  std::vector<bool> lift(n, false);
  bool any = false;
  for (size_t t = 0; t < n; ++t) {
    lift[t] = member[t] && gain[find(t)] > 0;
    any = any || lift[t];
  }
  if (!any) return OkStatus();

  // Rewrite: a lifted tensor that enters or leaves keeps its id and shape for the other
  // side and gets a lifted twin; the others are lifted in place.
  TensorNames names{{&g.tensors}};
  std::vector<TensorId> twin(n, -1);
  for (size_t t = 0; t < n; ++t) {
    if (!lift[t] || (!enters[t] && !leaves[t])) continue;
    ir::Tensor c = g.tensors[t];
    c.name = names.Unique(c.name + ".lifted");
    c.shape = Lifted(c.shape);
    twin[t] = g.AddTensor(std::move(c));
  }
  std::vector<ir::Op> out;
  NameIndex<ir::Op> op_names{{&g.ops, &out}};
  op_names.Unique("");  // indexes the op names before the ops move
  auto reshape = [&](TensorId x, TensorId y) {
    return ir::MakeOp(OpType::kReshape, op_names.Unique(g.tensor(y).name + ".reshape"), {x},
                      {y}, ir::ReshapeAttrs{g.tensor(y).shape});
  };
  for (TensorId t : g.inputs) {
    if (twin[static_cast<size_t>(t)] >= 0) out.push_back(reshape(t, twin[static_cast<size_t>(t)]));
  }
  for (size_t k = 0; k < g.ops.size(); ++k) {
    ir::Op op = std::move(g.ops[k]);
    const size_t y = static_cast<size_t>(op.outputs[0]);
    const bool reshape_op = op.type == OpType::kReshape;
    const bool lifted_op =
        liftable[k] && ((l.Rank3Activation(op.outputs[0]) && lift[y]) ||
                        (Reduction(op.type) && lift[static_cast<size_t>(op.inputs[0])]));
    if (reshape_op) {
      // Reads the lifted twin (the same elements); writes a lifted tensor's lifted shape.
      const size_t x = static_cast<size_t>(op.inputs[0]);
      if (twin[x] >= 0) op.inputs[0] = twin[x];
      if (lift[y]) op.attrs_as<ir::ReshapeAttrs>().shape = Lifted(g.tensors[y].shape);
    }
    if (lifted_op) {
      for (size_t i = 0; i < Operands(op); ++i) {
        TensorId& x = op.inputs[i];
        const size_t xi = static_cast<size_t>(x);
        if (twin[xi] >= 0) {
          x = twin[xi];
        } else if (g.tensor(x).is_constant()) {
          // A broadcast operand: right-aligned to rank 3, then the unit dim.
          ir::Tensor c = g.tensor(x);
          ir::Shape s = c.shape;
          s.insert(s.begin(), 3 - s.size(), 1);
          c.shape = Lifted(s);
          c.name = names.Unique(c.name + ".lifted");
          x = g.AddTensor(std::move(c));
        }
      }
      switch (op.type) {
        case OpType::kQPad:
        case OpType::kPad: {
          auto& p = op.type == OpType::kQPad ? op.attrs_as<ir::QPadAttrs>().padding
                                             : op.attrs_as<ir::PadAttrs>().padding;
          p.insert(p.begin() + 4, {0, 0});
          break;
        }
        case OpType::kSlice: {
          auto& a = op.attrs_as<ir::SliceAttrs>();
          a.begin.insert(a.begin.begin() + 2, 0);
          a.end.insert(a.end.begin() + 2, 1);
          a.stride.insert(a.stride.begin() + 2, 1);
          break;
        }
        case OpType::kQConcat:
        case OpType::kCat: {
          int64_t& axis = op.attrs_as<ir::CatAttrs>().axis;
          axis = *ir::NormalizeAxis(axis, 3);
          if (axis == 2) axis = 3;
          break;
        }
        default:
          if (Reduction(op.type)) {
            auto& a = op.attrs_as<ir::MeanAttrs>();
            TF_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ir::NormalizeMeanDims(a, 3));
            for (int64_t& d : dims) d = d == 2 ? 3 : d;
            if (!a.keepdim) dims.push_back(2);  // the unit dim goes too: the output's rank stays
            std::sort(dims.begin(), dims.end());
            a.dims = dims;
          }
          break;
      }
    }
    std::vector<ir::Op> after;
    if ((lifted_op || reshape_op) && lift[y] && twin[y] >= 0) {
      // y leaves the group: the op writes the twin, a reshape down writes y.
      op.outputs[0] = twin[y];
      after.push_back(reshape(twin[y], static_cast<TensorId>(y)));
    } else {
      for (TensorId t : op.outputs) {
        const size_t ti = static_cast<size_t>(t);
        if (lift[ti] && enters[ti]) after.push_back(reshape(t, twin[ti]));
      }
    }
    out.push_back(std::move(op));
    for (ir::Op& a : after) out.push_back(std::move(a));
  }
  // Lifted in place: the shapes (the twins' originals keep theirs).
  for (size_t t = 0; t < n; ++t) {
    if (lift[t] && twin[t] < 0) g.tensors[t].shape = Lifted(g.tensors[t].shape);
  }
  g.ops = std::move(out);
  return OkStatus();
}

}  // namespace tinyforge::passes
