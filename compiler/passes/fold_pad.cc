// fold-pad: a `qpad` by its input's zero point whose only reader is a conv or depthwise conv
// (NHWC) becomes that conv's padding. The kernels skip taps outside the input, which is
// the same as reading the zero point there ((zp + input_offset) * w = 0), so the result is
// bit-identical; the padded copy, its buffer and its op go. A causal TCN's F.pad before each
// Conv1d, PyTorch's explicit F.pad before a conv, a .tflite PAD the converter did not fuse. Pads of N or C, another value, a requantizing pad, or a pad read by anything else
// stay. (Pools are not folded: an average pool counts PyTorch's padding, a max pool's
// padded positions never win.)
#include "passes/pass.h"
#include "passes/util.h"

namespace tinyforge::passes {

Status FoldPad(ir::Graph& g, const PassOptions&) {
  const auto consumers = ir::ComputeConsumers(g);
  std::vector<bool> graph_out(g.tensors.size(), false);
  for (ir::TensorId t : g.outputs) graph_out[static_cast<size_t>(t)] = true;
  std::vector<bool> dropped(g.ops.size(), false);
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const ir::Op& pad = g.ops[k];
    if (pad.type != ir::OpType::kQPad) continue;
    const ir::TensorId x = pad.inputs[0], y = pad.outputs[0];
    const ir::Tensor& xt = g.tensor(x);
    const auto& readers = consumers[static_cast<size_t>(y)];
    if (graph_out[static_cast<size_t>(y)] || readers.size() != 1 || xt.shape.size() != 4 ||
        !xt.quant || xt.quant->per_channel() || g.tensor(y).quant != xt.quant) {
      continue;
    }
    const auto& a = pad.attrs_as<ir::QPadAttrs>();
    const std::vector<int64_t>& p = a.padding;  // NHWC pairs
    if (p.size() != 8 || p[0] != 0 || p[1] != 0 || p[6] != 0 || p[7] != 0 ||
        a.value != xt.quant->zero_point[0]) {
      continue;
    }
    bool negative = false;
    for (int64_t v : p) negative = negative || v < 0;
    if (negative) continue;
    ir::Op& conv = g.ops[static_cast<size_t>(readers[0])];
    ir::Pad4* padding = nullptr;
    if (conv.type == ir::OpType::kQConv2d &&
        conv.attrs_as<ir::QConv2dAttrs>().layout == ir::Layout::kNHWC &&
        !conv.attrs_as<ir::QConv2dAttrs>().input_zp_folded) {
      padding = &conv.attrs_as<ir::QConv2dAttrs>().padding;
    } else if (conv.type == ir::OpType::kQDwConv2d &&
               conv.attrs_as<ir::QDwConv2dAttrs>().layout == ir::Layout::kNHWC &&
               !conv.attrs_as<ir::QDwConv2dAttrs>().input_zp_folded) {
      padding = &conv.attrs_as<ir::QDwConv2dAttrs>().padding;
    }
    if (padding == nullptr || conv.inputs[0] != y) continue;
    // Pad4 is [top, left, bottom, right]; the qpad's pairs are (before, after) of N, H, W, C.
    (*padding)[0] += p[2], (*padding)[1] += p[4], (*padding)[2] += p[3], (*padding)[3] += p[5];
    conv.inputs[0] = x;
    dropped[k] = true;
  }
  std::vector<ir::Op> out;
  out.reserve(g.ops.size());
  for (size_t k = 0; k < g.ops.size(); ++k) {
    if (!dropped[k]) out.push_back(std::move(g.ops[k]));
  }
  g.ops = std::move(out);
  return OkStatus();
}

}  // namespace tinyforge::passes
