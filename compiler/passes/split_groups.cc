// split-groups: a grouped qconv2d (1 < groups; depthwise is qdwconv2d) becomes, per group, a
// `slice` of its input channels, an ordinary qconv2d with that group's filters, bias and
// multipliers, and one channel `qconcat` of the results. Each output channel is the same
// integer sum and requantization as before (bit-identical); the conv kernels' fast variants
// take only ungrouped convs (grouped ones fall back to `__ref`, ~20 instructions per MAC on
// the M55), so the copies in and out cost less than they save (docs/decisions.md 31).
#include <algorithm>
#include <optional>

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

constexpr int64_t kMinSplitElements = 256;

struct ChannelSlices {
  std::vector<int> ops;
  std::vector<std::pair<int64_t, int64_t>> ranges;
};

// The channel ranges [lo, hi) of the slices reading op's output, in slice order, when
// every reader is a slice of disjoint output channels (the last axis: NHWC's C, a qfc's
// features) taking every row of the other axes, quantized like the output, of at least
// kMinSplitElements elements; else none.
std::optional<ChannelSlices> SlicedByChannels(const ir::Graph& g, const ir::Op& op,
                                              const std::vector<std::vector<int>>& consumers,
                                              const std::vector<bool>& graph_out) {
  const ir::TensorId y = op.outputs[0];
  const ir::Tensor& yt = g.tensor(y);
  const auto& readers = consumers[static_cast<size_t>(y)];
  if (graph_out[static_cast<size_t>(y)] || readers.empty()) return std::nullopt;
  const size_t rank = yt.shape.size(), c = rank - 1;
  ChannelSlices cs;
  for (int r : readers) {
    const ir::Op& s = g.ops[static_cast<size_t>(r)];
    if (s.type != ir::OpType::kSlice || s.inputs[0] != y || g.tensor(s.outputs[0]).quant != yt.quant) {
      return std::nullopt;
    }
    const auto& a = s.attrs_as<ir::SliceAttrs>();
    for (size_t d = 0; d < rank; ++d) {
      if (a.stride[d] != 1) return std::nullopt;
      if (d != c && (a.begin[d] != 0 || a.end[d] < yt.shape[d])) return std::nullopt;
    }
    const int64_t lo = std::clamp<int64_t>(a.begin[c] < 0 ? a.begin[c] + yt.shape[c] : a.begin[c], 0, yt.shape[c]);
    const int64_t hi = std::clamp<int64_t>(a.end[c] < 0 ? a.end[c] + yt.shape[c] : a.end[c], 0, yt.shape[c]);
    if (lo >= hi || g.tensor(s.outputs[0]).shape[c] != hi - lo) return std::nullopt;
    // A part costs one more call of the op (~320 instructions on the M55, measured on a GRU),
    // a slice about one per element: measured, a GRU's 64-element gates lose, attention's
    // 512-element q / k / v gain (docs/decisions.md 94).
    if (g.tensor(s.outputs[0]).num_elements() < kMinSplitElements) return std::nullopt;
    cs.ops.push_back(r);
    cs.ranges.push_back({lo, hi});
  }
  std::vector<std::pair<int64_t, int64_t>> sorted = cs.ranges;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i].first < sorted[i - 1].second) return std::nullopt;  // overlapping
  }
  if (sorted.size() == 1 && sorted[0] == std::pair<int64_t, int64_t>{0, yt.shape[c]}) {
    return std::nullopt;  // one slice of everything: remove-noops' case
  }
  return cs;
}

}  // namespace

// A qconv2d (NHWC, ungrouped) or qfc whose output only channel slices read (a GLU's or a
// gated activation's halves, YOLOv8's C2f chunks, attention's q / k / v) becomes one op
// per slice computing those output channels into the slice's tensor: the same sums and
// requantizations, no copies, and channels no slice reads are not computed.
Status SplitOutputs(ir::Graph& g, const PassOptions&) {
  const auto consumers = ir::ComputeConsumers(g);
  std::vector<bool> graph_out(g.tensors.size(), false);
  for (ir::TensorId t : g.outputs) graph_out[static_cast<size_t>(t)] = true;
  TensorNames names({&g.tensors});
  std::vector<std::optional<ChannelSlices>> plan(g.ops.size());
  std::vector<bool> dropped(g.ops.size(), false);
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const ir::Op& op = g.ops[k];
    const bool conv = op.type == ir::OpType::kQConv2d &&
                      op.attrs_as<ir::QConv2dAttrs>().groups == 1 &&
                      op.attrs_as<ir::QConv2dAttrs>().layout == ir::Layout::kNHWC;
    if (!conv && op.type != ir::OpType::kQFc) continue;
    if (!g.tensor(op.inputs[1]).is_constant()) continue;
    plan[k] = SlicedByChannels(g, op, consumers, graph_out);
    if (plan[k]) {
      for (int r : plan[k]->ops) dropped[static_cast<size_t>(r)] = true;
    }
  }
  std::vector<ir::Op> out;
  out.reserve(g.ops.size());
  for (size_t k = 0; k < g.ops.size(); ++k) {
    if (dropped[k]) continue;
    if (!plan[k]) {
      out.push_back(std::move(g.ops[k]));
      continue;
    }
    const ir::Op& op = g.ops[k];
    for (size_t i = 0; i < plan[k]->ops.size(); ++i) {
      const auto [lo, hi] = plan[k]->ranges[i];
      const ir::Op& slice = g.ops[static_cast<size_t>(plan[k]->ops[i])];
      std::vector<ir::TensorId> ins = {op.inputs[0]};
      for (size_t j = 1; j < op.inputs.size(); ++j) {  // w, b[, multiplier, shift]: per channel
        const ir::Tensor& t = g.tensor(op.inputs[j]);
        if (t.is_constant() && !t.shape.empty() && t.shape[0] > 1) {
          ins.push_back(Rows(g, names, op.inputs[j], lo, hi, t.name + "." + slice.name));
        } else {
          ins.push_back(op.inputs[j]);
        }
      }
      ir::Op part = op;
      part.name = slice.name;
      part.inputs = std::move(ins);
      part.outputs = slice.outputs;
      out.push_back(std::move(part));
    }
  }
  g.ops = std::move(out);
  return OkStatus();
}

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
