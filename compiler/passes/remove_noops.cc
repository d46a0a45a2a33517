// remove-noops: ops that move no data disappear by aliasing tensors instead of copying.
//  - transpose of a transpose: one transpose with the composed permutation;
//  - transpose that moves only size-1 dims (C order unchanged): a reshape;
//  - reshape of a reshape: one reshape;
//  - identity transpose, same-shape reshape, requantize with equal quantization and a
//    clamp that clamps nothing, single-input qconcat: removed (readers read the input).
// What stays is data movement that is real (edge transposes of an NCHW program) and
// reshape views: a reshape's output aliases its input's bytes, the planner gives both one
// buffer and the runtime does nothing (docs/lowered-ops.md).
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

// One rewrite of op i, or false.
bool Simplify(ir::Graph& g, size_t i, const std::vector<int>& producer) {
  ir::Op& op = g.ops[i];
  const ir::Tensor& x = g.tensor(op.inputs[0]);
  const ir::Tensor& y = g.tensor(op.outputs[0]);
  const int p = producer[static_cast<size_t>(op.inputs[0])];
  const ir::Op* prev = p == ir::kNoProducer ? nullptr : &g.ops[static_cast<size_t>(p)];
  switch (op.type) {
    case OpType::kTranspose: {
      auto& perm = op.attrs_as<ir::TransposeAttrs>().perm;
      if (prev && prev->type == OpType::kTranspose) {
        const auto& first = prev->attrs_as<ir::TransposeAttrs>().perm;
        std::vector<int64_t> composed(perm.size());
        for (size_t d = 0; d < perm.size(); ++d) composed[d] = first[static_cast<size_t>(perm[d])];
        op.inputs[0] = prev->inputs[0];
        perm = composed;
        return true;
      }
      if (IsIdentity(perm)) return AliasAway(g, i);
      if (PreservesOrder(x.shape, perm)) {
        op.type = OpType::kReshape;
        op.attrs = ir::ReshapeAttrs{y.shape};
        return true;
      }
      return false;
    }
    case OpType::kReshape:
      if (prev && prev->type == OpType::kReshape) {
        op.inputs[0] = prev->inputs[0];
        return true;
      }
      if (x.shape == y.shape) return AliasAway(g, i);
      op.attrs_as<ir::ReshapeAttrs>().shape = y.shape;  // no -1 left
      return false;
    case OpType::kRequantize: {
      const auto& a = op.attrs_as<ir::ClampAttrs>();
      if (SameQuant(x, y) && a.act_min <= -128 && a.act_max >= 127) return AliasAway(g, i);
      return false;
    }
    case OpType::kQConcat:
      if (op.inputs.size() == 1 && SameQuant(x, y)) return AliasAway(g, i);
      return false;
    default:
      return false;
  }
}

}  // namespace

Status RemoveNoops(ir::Graph& g, const PassOptions&) {
  for (bool changed = true; changed;) {
    changed = false;
    const auto producer = ir::ComputeProducers(g);
    for (size_t i = 0; i < g.ops.size() && !changed; ++i) changed = Simplify(g, i, producer);
  }
  RemoveDeadCode(g);  // transposes/reshapes whose only reader now reads around them
  return OkStatus();
}

}  // namespace tinyforge::passes
