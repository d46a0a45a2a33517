// compute-multipliers: every op that rescales gets its requantization as int32 constants,
// `multiplier` and `shift` (per output channel for conv/depthwise/FC), appended as its last
// two inputs: Q31 multipliers and shifts exactly as TensorFlow Lite Micro's Prepare()
// computes them (compiler/quant, via exec::ComputeRequantConstants, the same code the
// executor used before this pass). After it, no kernel parameter needs a float scale.
#include "exec/op_params.h"
#include "passes/pass.h"
#include "passes/util.h"

namespace tinyforge::passes {

Status ComputeMultipliers(ir::Graph& g, const PassOptions&) {
  if (g.kind != ir::GraphKind::kInt8) {
    return Error("needs a lowered graph (kind int8): run fold-qdq first");
  }
  TensorNames names({&g.tensors});
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (exec::RequantBaseInputs(g.ops[i].type) == 0 || exec::HasRequantInputs(g.ops[i])) continue;
    auto c = exec::ComputeRequantConstants(g, g.ops[i]);
    if (!c.ok()) return OpError(g, i, c.error().message());
    const std::string& name = g.ops[i].name;
    const ir::TensorId m = AddInt32Constant(g, names, name + ".multiplier", c->multiplier);
    const ir::TensorId s = AddInt32Constant(g, names, name + ".shift", c->shift);
    g.ops[i].inputs.push_back(m);
    g.ops[i].inputs.push_back(s);
  }
  return OkStatus();
}

}  // namespace tinyforge::passes
