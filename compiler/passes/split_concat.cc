// split-concat: a `qconcat` (or a float model's `cat`) with more inputs than the concat kernel takes
// (TF_LIMIT_CONCAT_INPUTS, 16: the runtime rebuilds the input descriptors on its stack)
// becomes a tree of qconcats: runs of consecutive inputs are joined first into partial
// tensors along the same axis, quantized like the output, and the last qconcat joins the
// partials and the remaining inputs. Only as many inputs as needed are grouped (25 inputs:
// one partial of the first 10, then 1 + 15 inputs), so the extra copies and the partials'
// bytes are as few as the limit allows. Every input is a copy (qconcat inputs are quantized
// like the output, the verifier's rule), so the result is byte-identical
// (docs/decisions.md 53).
#include <algorithm>

#include "ir/shape_inference.h"
#include "kernels/concat/concat_limits.h"
#include "passes/pass.h"
#include "passes/util.h"

namespace tinyforge::passes {
namespace {

constexpr size_t kMaxInputs = TF_LIMIT_CONCAT_INPUTS;

}  // namespace

Status SplitConcat(ir::Graph& g, const PassOptions&) {
  TensorNames names({&g.tensors});
  std::vector<ir::Op> out;
  out.reserve(g.ops.size());
  for (size_t k = 0; k < g.ops.size(); ++k) {
    ir::Op& op = g.ops[k];
    const bool cat = op.type == ir::OpType::kQConcat || op.type == ir::OpType::kCat;  // (float)
    if (!cat || op.inputs.size() <= kMaxInputs) {
      out.push_back(std::move(op));
      continue;
    }
    const ir::Tensor& y = g.tensor(op.outputs[0]);
    const auto axis = ir::NormalizeAxis(op.attrs_as<ir::CatAttrs>().axis,
                                        static_cast<int64_t>(y.shape.size()));
    if (!axis) return OpError(g, k, "concat: axis out of range");
    const size_t a = static_cast<size_t>(*axis);
    const std::string base = op.name;
    const ir::DType dtype = y.dtype;
    const std::optional<ir::QuantParams> quant = y.quant;
    const ir::Shape yshape = y.shape;
    std::vector<ir::TensorId> items = op.inputs;
    int part = 0;
    while (items.size() > kMaxInputs) {
      // Each group of m items lowers the count by m - 1; group from the front, just enough.
      size_t excess = items.size() - kMaxInputs;
      std::vector<ir::TensorId> next;
      for (size_t i = 0; i < items.size();) {
        const size_t m = std::min({kMaxInputs, excess + 1, items.size() - i});
        if (excess == 0 || m < 2) {
          next.push_back(items[i++]);
          continue;
        }
        std::vector<ir::TensorId> group(items.begin() + static_cast<std::ptrdiff_t>(i),
                                        items.begin() + static_cast<std::ptrdiff_t>(i + m));
        ir::Shape shape = yshape;
        shape[a] = 0;
        for (ir::TensorId t : group) shape[a] += g.tensor(t).shape[a];
        ir::Tensor t;
        t.name = names.Unique(base + ".part" + std::to_string(part));
        t.dtype = dtype;
        t.quant = quant;
        t.shape = std::move(shape);
        const ir::TensorId pt = g.AddTensor(std::move(t));
        ir::Op part_op = ir::MakeOp(op.type, base + ".part" + std::to_string(part),
                                    std::move(group), {pt}, ir::CatAttrs{static_cast<int64_t>(a)});
        part_op.source = op.source;
        out.push_back(std::move(part_op));
        next.push_back(pt);
        excess -= m - 1;
        i += m;
        ++part;
      }
      items = std::move(next);
    }
    op.inputs = std::move(items);
    out.push_back(std::move(op));
  }
  g.ops = std::move(out);
  return OkStatus();
}

}  // namespace tinyforge::passes
