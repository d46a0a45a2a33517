#include "ir/stats.h"

#include <cstdio>
#include <string>

#include <algorithm>

#include "support/text.h"

namespace tinyforge::ir {

int64_t OpMacs(const Graph& g, const Op& op) {
  switch (op.type) {
    case OpType::kConv2d: {
      // Each output element takes (C/groups)*kh*kw products; w is [O, C/groups, kh, kw].
      const Shape& w = g.tensor(op.inputs[1]).shape;
      const int64_t per_output = w[1] * w[2] * w[3];
      return SaturatingMul(g.tensor(op.outputs[0]).num_elements(), per_output);
    }
    case OpType::kQConv2d:
    case OpType::kFConv2d: {
      // OIHW [O, C/g, kh, kw] or OHWI [O, kh, kw, C/g]: the same product.
      const Shape& w = g.tensor(op.inputs[1]).shape;
      return SaturatingMul(g.tensor(op.outputs[0]).num_elements(), w[1] * w[2] * w[3]);
    }
    case OpType::kQDwConv2d:
    case OpType::kFDwConv2d: {
      // [C*m, 1, kh, kw] or 1HWC [1, kh, kw, C*m]: kh * kw products per output element.
      const Shape& w = g.tensor(op.inputs[1]).shape;
      const bool nhwc = (op.type == OpType::kFDwConv2d ? op.attrs_as<FConv2dAttrs>().layout
                                                       : op.attrs_as<QDwConv2dAttrs>().layout) ==
                        Layout::kNHWC;
      const int64_t taps = nhwc ? w[1] * w[2] : w[2] * w[3];
      return SaturatingMul(g.tensor(op.outputs[0]).num_elements(), taps);
    }
    case OpType::kMatmul:
    case OpType::kQBmm: {  // K products per output element
      const Shape& a = g.tensor(op.inputs[0]).shape;
      const bool adj_x = op.type == OpType::kQBmm && op.attrs_as<QBmmAttrs>().adj_x;
      return SaturatingMul(g.tensor(op.outputs[0]).num_elements(),
                           a[a.size() - (adj_x ? 2 : 1)]);
    }
    case OpType::kQLstm: {  // per step: 4H rows of F + H products
      const Shape& x = g.tensor(op.inputs[0]).shape;
      const Shape& wh = g.tensor(op.inputs[2]).shape;
      return SaturatingMul(x[0] * x[1], wh[0] * (x[2] + wh[1]));
    }
    case OpType::kLinear:
    case OpType::kQFc:
    case OpType::kFFc: {
      const Shape& w = g.tensor(op.inputs[1]).shape;
      return SaturatingMul(g.tensor(op.outputs[0]).num_elements(), w[1]);
    }
    default:
      return 0;
  }
}

std::vector<bool> ConstantDerived(const Graph& g) {
  std::vector<bool> derived(g.tensors.size(), false);
  for (size_t i = 0; i < g.tensors.size(); ++i) derived[i] = g.tensors[i].is_constant();
  for (const Op& op : g.ops) {
    const bool all = !op.inputs.empty() &&
                     std::all_of(op.inputs.begin(), op.inputs.end(),
                                 [&](TensorId t) { return derived[static_cast<size_t>(t)]; });
    for (TensorId t : op.outputs) derived[static_cast<size_t>(t)] = all;
  }
  return derived;
}

FloatShare ComputeFloatShare(const Graph& g, const GraphStats& stats) {
  FloatShare s;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const OpStats& os = stats.ops[i];
    if (os.constant_folded) continue;
    const int64_t cost = os.macs > 0 ? os.macs : g.tensor(g.ops[i].outputs[0]).num_elements();
    s.total += cost;
    const OpType type = g.ops[i].type;
    // A lowered float model's other ops and its data movement (decision 68): float32 in.
    const bool float_model_op =
        g.kind == GraphKind::kInt8 && type != OpType::kQuantize && type != OpType::kReshape &&
        !g.ops[i].inputs.empty() && g.tensor(g.ops[i].inputs[0]).dtype == DType::kFloat32;
    if (IsFloatFallbackOp(type) || IsFloatLayerOp(type) || float_model_op) {
      s.ops.push_back(i);
      s.cost += cost;
    }
  }
  return s;
}

std::string DescribeFloatShare(const Graph& g, const FloatShare& share) {
  if (share.ops.empty()) return {};
  char pct[32];
  std::snprintf(pct, sizeof(pct), "%.1f", share.percent());
  std::string s = std::to_string(share.ops.size()) + " of " + std::to_string(g.ops.size()) +
                  " ops run in float32 (" + pct + "% of the cost: MACs, elements where none):";
  for (size_t k = 0; k < share.ops.size(); ++k) {
    const Op& op = g.ops[share.ops[k]];
    const std::string what =
        IsFloatFallbackOp(op.type) && op.type != OpType::kCumsum
            ? std::string(FloatFnName(op.attrs_as<FloatFnAttrs>().fn))
            : std::string(OpTypeName(op.type));  // cumsum, the float model's layers and ops
    s += std::string(k ? "," : "") + " op '" + op.name + "' (" + what + ")";
  }
  return s;
}

GraphStats ComputeStats(const Graph& g) {
  GraphStats s;
  const std::vector<bool> derived = ConstantDerived(g);
  // Bytes of stored constants each constant-derived tensor is computed from, so that the
  // conv reading dequantize(int8 weights) reports the int8 bytes that go to flash.
  std::vector<int64_t> source_bytes(g.tensors.size(), 0);
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const Tensor& t = g.tensors[i];
    if (t.is_constant()) {
      source_bytes[i] = t.num_bytes();
      s.params = SaturatingAdd(s.params, t.num_elements());
      s.constant_bytes = SaturatingAdd(s.constant_bytes, t.num_bytes());
    } else if (!derived[i]) {
      s.activation_bytes = SaturatingAdd(s.activation_bytes, t.num_bytes());
      if (t.num_bytes() > s.largest_activation_bytes) {
        s.largest_activation_bytes = t.num_bytes();
        s.largest_activation = static_cast<TensorId>(i);
      }
    }
  }
  for (const Op& op : g.ops) {
    OpStats os;
    os.macs = OpMacs(g, op);
    os.constant_folded = true;
    std::vector<TensorId> seen;
    for (TensorId t : op.inputs) {
      const size_t i = static_cast<size_t>(t);
      if (!derived[i]) {
        os.constant_folded = false;
        continue;
      }
      if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
      seen.push_back(t);
      os.params = SaturatingAdd(os.params, g.tensor(t).num_elements());
      os.param_bytes = SaturatingAdd(os.param_bytes, source_bytes[i]);
    }
    os.constant_folded = os.constant_folded && !op.inputs.empty();
    for (TensorId t : op.outputs) {
      os.output_bytes = SaturatingAdd(os.output_bytes, g.tensor(t).num_bytes());
      if (os.constant_folded) source_bytes[static_cast<size_t>(t)] = os.param_bytes;
    }
    // Weight preparation is not a cost of inference: its parameters are counted where used.
    if (os.constant_folded) os.params = os.param_bytes = 0;
    s.macs = SaturatingAdd(s.macs, os.macs);
    s.ops.push_back(os);
  }
  return s;
}

}  // namespace tinyforge::ir
