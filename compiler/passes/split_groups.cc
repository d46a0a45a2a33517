// split-groups: a grouped qconv2d (1 < groups; depthwise is qdwconv2d) becomes, per group, a
// `slice` of its input channels, an ordinary qconv2d with that group's filters, bias and
// multipliers, and one channel `qconcat` of the results. Each output channel is the same
// integer sum and requantization as before (bit-identical); the conv kernels' fast variants
// take only ungrouped convs (grouped ones fall back to `__ref`, ~20 instructions per MAC on
// the M55), so the copies in and out cost less than they save (docs/decisions.md 31).
#include "passes/pass.h"
#include "passes/util.h"

namespace tinyforge::passes {
namespace {

// Rows [lo, hi) of constant `t` along axis 0, with its per-channel parameters cut alike.
ir::TensorId Rows(ir::Graph& g, TensorNames& names, ir::TensorId id, int64_t lo, int64_t hi,
                  const std::string& name) {
  const ir::Tensor& t = g.tensor(id);
  const size_t row = t.data->size() / static_cast<size_t>(t.shape[0]);
  std::vector<uint8_t> bytes(t.data->begin() + static_cast<std::ptrdiff_t>(row * lo),
                             t.data->begin() + static_cast<std::ptrdiff_t>(row * hi));
  ir::Shape shape = t.shape;
  shape[0] = hi - lo;
  std::optional<ir::QuantParams> q = t.quant;
  if (q && q->per_channel() && *q->axis == 0) {
    q->scale.assign(q->scale.begin() + lo, q->scale.begin() + hi);
    q->zero_point.assign(q->zero_point.begin() + lo, q->zero_point.begin() + hi);
  }
  return AddConstant(g, names, name, t.dtype, std::move(shape), std::move(bytes), std::move(q));
}

ir::TensorId Activation(ir::Graph& g, TensorNames& names, const ir::Tensor& like,
                        const std::string& name, ir::Shape shape) {
  ir::Tensor t;
  t.name = names.Unique(name);
  t.dtype = like.dtype;
  t.quant = like.quant;
  t.shape = std::move(shape);
  return g.AddTensor(std::move(t));
}

}  // namespace

Status SplitGroups(ir::Graph& g, const PassOptions&) {
  TensorNames names({&g.tensors});
  std::vector<ir::Op> out;
  out.reserve(g.ops.size());
  for (ir::Op& op : g.ops) {
    if (op.type != ir::OpType::kQConv2d || op.attrs_as<ir::QConv2dAttrs>().groups <= 1 ||
        op.attrs_as<ir::QConv2dAttrs>().layout != ir::Layout::kNHWC) {
      out.push_back(std::move(op));
      continue;
    }
    const ir::QConv2dAttrs a = op.attrs_as<ir::QConv2dAttrs>();
    const ir::Shape xs = g.tensor(op.inputs[0]).shape, ys = g.tensor(op.outputs[0]).shape;
    const int64_t groups = a.groups, fic = xs[3] / groups, opg = ys[3] / groups;
    std::vector<ir::TensorId> parts;
    for (int64_t k = 0; k < groups; ++k) {
      const std::string base = op.name + ".g" + std::to_string(k);
      ir::SliceAttrs s;
      s.begin = {0, 0, 0, k * fic};
      s.end = {xs[0], xs[1], xs[2], (k + 1) * fic};
      s.stride = {1, 1, 1, 1};
      const ir::TensorId xk = Activation(g, names, g.tensor(op.inputs[0]), base + ".in",
                                         {xs[0], xs[1], xs[2], fic});
      ir::Op slice = ir::MakeOp(ir::OpType::kSlice, base + ".slice", {op.inputs[0]}, {xk}, s);
      slice.source = op.source;
      out.push_back(std::move(slice));
      std::vector<ir::TensorId> ins = {xk};
      for (size_t i = 1; i < op.inputs.size(); ++i) {  // w, b[, multiplier, shift]: per channel
        ins.push_back(Rows(g, names, op.inputs[i], k * opg, (k + 1) * opg,
                           g.tensor(op.inputs[i]).name + ".g" + std::to_string(k)));
      }
      const ir::TensorId yk = Activation(g, names, g.tensor(op.outputs[0]), base + ".out",
                                         {ys[0], ys[1], ys[2], opg});
      ir::QConv2dAttrs ak = a;
      ak.groups = 1;
      ir::Op conv = ir::MakeOp(ir::OpType::kQConv2d, base, std::move(ins), {yk}, ak);
      conv.source = op.source;
      out.push_back(std::move(conv));
      parts.push_back(yk);
    }
    ir::Op cat = ir::MakeOp(ir::OpType::kQConcat, op.name, std::move(parts), op.outputs,
                            ir::CatAttrs{3});
    cat.source = op.source;
    out.push_back(std::move(cat));
  }
  g.ops = std::move(out);
  return OkStatus();
}

}  // namespace tinyforge::passes
