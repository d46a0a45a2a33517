// precompute-bias: TFLite Micro's conv, depthwise and FC kernels add the input offset to
// every input element: acc[o] = bias[o] + sum((x + input_offset) * w[o]). Where every tap
// lies inside the input (no padding), sum(input_offset * w[o]) is a per-channel constant;
// this pass folds it into the bias, bias'[o] = bias[o] - input_zp * sum(w[o]), and marks
// the op input_zp_folded so the kernel runs with input_offset 0. int32 arithmetic is exact
// here (checked: a channel whose folded bias would overflow int32 is left alone), so the
// output is bit-identical. Padded convolutions are left alone: their border windows skip
// taps, so the sum would differ there.
#include <algorithm>

#include "passes/pass.h"
#include "passes/util.h"

namespace tinyforge::passes {
namespace {

// sum(w[o]) per output channel. The channel is axis 0 except for NHWC depthwise (1HWC: the
// last axis).
std::vector<int64_t> ChannelSums(const ir::Tensor& w, bool channel_last, int64_t channels) {
  const auto v = ConstantValues<int8_t>(w);
  std::vector<int64_t> sums(static_cast<size_t>(channels), 0);
  const size_t per = v.size() / static_cast<size_t>(channels);
  for (size_t i = 0; i < v.size(); ++i) {
    sums[channel_last ? i % static_cast<size_t>(channels) : i / per] += v[i];
  }
  return sums;
}

}  // namespace

Status PrecomputeBias(ir::Graph& g, const PassOptions&) {
  const auto consumers = ir::ComputeConsumers(g);
  TensorNames names({&g.tensors});
  for (ir::Op& op : g.ops) {
    bool* folded = nullptr;
    bool padded = false;
    bool channel_last = false;
    if (op.type == ir::OpType::kQConv2d) {
      auto& a = op.attrs_as<ir::QConv2dAttrs>();
      folded = &a.input_zp_folded;
      padded = std::any_of(a.padding.begin(), a.padding.end(), [](int64_t p) { return p != 0; });
    } else if (op.type == ir::OpType::kQDwConv2d) {
      auto& a = op.attrs_as<ir::QDwConv2dAttrs>();
      folded = &a.input_zp_folded;
      padded = std::any_of(a.padding.begin(), a.padding.end(), [](int64_t p) { return p != 0; });
      channel_last = a.layout == ir::Layout::kNHWC;
    } else if (op.type == ir::OpType::kQFc) {
      folded = &op.attrs_as<ir::QFcAttrs>().input_zp_folded;
    }
    if (!folded || *folded || padded) continue;
    const int64_t zp = g.tensor(op.inputs[0]).quant->zero_point[0];
    if (zp == 0) continue;
    const ir::Tensor& w = g.tensor(op.inputs[1]);
    const ir::Tensor& b = g.tensor(op.inputs[2]);
    std::vector<int32_t> bias = ConstantValues<int32_t>(b);
    const auto sums = ChannelSums(w, channel_last, static_cast<int64_t>(bias.size()));
    std::vector<int32_t> out(bias.size());
    bool fits = true;
    for (size_t o = 0; o < bias.size(); ++o) {
      const int64_t v = int64_t{bias[o]} - zp * sums[o];
      fits = fits && v >= INT32_MIN && v <= INT32_MAX;
      out[o] = static_cast<int32_t>(v);
    }
    if (!fits) continue;
    if (consumers[static_cast<size_t>(op.inputs[2])].size() == 1) {
      g.tensor(op.inputs[2]).data = Bytes<int32_t>(out);
    } else {  // a bias shared with another op keeps its value there
      op.inputs[2] = AddConstant(g, names, b.name + ".folded", ir::DType::kInt32, b.shape,
                                 Bytes<int32_t>(out), b.quant);
    }
    *folded = true;
  }
  return OkStatus();
}

}  // namespace tinyforge::passes
