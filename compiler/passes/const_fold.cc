// const-fold: an op whose inputs are all constants is evaluated now (by the host executor,
// so with exactly the semantics it would have at run time) and its output becomes a
// constant. dequantize is the exception: dequantize(int8 constant) is how a qdq graph marks
// quantized weights, and fold-qdq needs that pattern intact.
#include "exec/executor.h"
#include "ir/verifier.h"
#include "passes/pass.h"
#include "passes/util.h"

namespace tinyforge::passes {

Status ConstFold(ir::Graph& g, const PassOptions&) {
  std::vector<ir::Op> kept;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const ir::Op& op = g.ops[i];
    bool all_constant = !op.inputs.empty() && op.type != ir::OpType::kDequantize;
    for (ir::TensorId t : op.inputs) all_constant = all_constant && g.tensor(t).is_constant();
    if (!all_constant) {
      kept.push_back(op);
      continue;
    }
    auto value = exec::RunAlone(g, op, {});
    TF_RETURN_IF_ERROR_PREFIX(value, ir::OpLabel(g, i));
    g.tensor(op.outputs[0]).data = value->ToBytes();
  }
  g.ops = std::move(kept);
  ir::CompactTensors(g);
  return OkStatus();
}

Status Dce(ir::Graph& g, const PassOptions&) {
  RemoveDeadCode(g);
  return OkStatus();
}

}  // namespace tinyforge::passes
