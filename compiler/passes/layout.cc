// layout: NCHW -> NHWC, once, at compile time. Every rank-4 activation tensor gets the NHWC
// shape; conv weights OIHW -> OHWI and depthwise weights [C*m,1,kh,kw] -> 1HWC
// [1,kh,kw,C*m] are rewritten as constants; spatial ops switch to layout=NHWC and ops with
// an axis (mean, softmax, concat, pad, slice, a gather of 1-D indices) get it renumbered. A
// flatten [N,C,H,W] -> [N,C*H*W] read only by qfc ops (conv -> flatten -> linear) stays a
// view of the NHWC data: the qfc
// weights' columns are permuted from C,H,W to H,W,C order instead. Other ops whose meaning
// depends on the element order (reshape, qfc on a rank-4 input, transpose) are wrapped in
// transposes back to NCHW, which remove-noops turns into views where they move only
// size-1 dims.
//
// Rank-4 activations that no spatial op (conv, depthwise, pools, resize) reaches through
// the ops joining them (transposes join nothing), and that are no graph input or output,
// keep PyTorch's order: an attention block's [B, H, T, D] tensors between its head-split
// transposes and qbmm would otherwise gain a transpose pair around every qbmm, a
// channels-last block (ConvNeXt's LayerNorm and Linear layers between permutes) a pair
// around every op.
//
// The model's inputs and outputs follow --layout (PassOptions::io_layout): NHWC (default)
// makes them NHWC too; NCHW keeps them and inserts a transpose at each rank-4 edge.
// Graph::layout and Graph::io_layout record the result (docs/lowered-ops.md).
#include <algorithm>
#include <optional>
#include <set>

#include "ir/shape_inference.h"
#include "passes/pass.h"
#include "passes/util.h"
#include "quant/kernel_params.h"

namespace tinyforge::passes {
namespace {

using ir::OpType;
using ir::TensorId;

constexpr int64_t kAxisToNhwc[] = {0, 3, 1, 2};  // NCHW axis d is NHWC axis kAxisToNhwc[d]

struct Rewriter {
  ir::Graph& g;
  const PassOptions& options;
  std::vector<bool> permute;  // tensors whose shape becomes NHWC at the end
  std::vector<bool> edge;     // rank-4 tensors that keep NCHW (io_layout NCHW)
  std::vector<TensorId> nhwc_of_edge;  // edge input -> its transposed interior copy
  std::vector<ir::Op> out;

  bool Rank4(TensorId t) const { return g.tensor(t).shape.size() == 4; }

  // A transpose of `x` by `perm` into a new tensor; returns it. `shape` is x's shape as
  // seen now (before the end-of-pass permutation of shapes).
  TensorId Transpose(TensorId x, const ir::Shape& shape, std::span<const int64_t> perm,
                     const std::string& suffix, const std::string& op_name) {
    ir::Tensor t = g.tensor(x);
    t.data.reset();
    t.name = tensor_names.Unique(t.name + suffix);
    t.shape = PermuteShape(shape, perm);
    const TensorId id = g.AddTensor(std::move(t));
    permute.push_back(false), edge.push_back(false), nhwc_of_edge.push_back(-1);
    out.push_back(ir::MakeOp(OpType::kTranspose, Name(op_name), {x}, {id},
                             ir::TransposeAttrs{{perm.begin(), perm.end()}}));
    return id;
  }

  std::string Name(const std::string& base) { return op_names.Unique(base); }

  // The NHWC shape a tensor will have (the current one if it is not permuted).
  ir::Shape Final(TensorId t) const {
    return permute[static_cast<size_t>(t)] ? PermuteShape(g.tensor(t).shape, kNchwToNhwc)
                                           : g.tensor(t).shape;
  }

  // Reads of an NCHW edge tensor by an interior op go through one transpose to NHWC.
  void InteriorInputs(ir::Op& op) {
    for (TensorId& t : op.inputs) {
      if (!edge[static_cast<size_t>(t)]) continue;
      if (nhwc_of_edge[static_cast<size_t>(t)] < 0) {
        // (Transpose grows nhwc_of_edge: no reference into it across the call.)
        const TensorId copy =
            Transpose(t, g.tensor(t).shape, kNchwToNhwc, ".nhwc", op.name + ".to_nhwc");
        nhwc_of_edge[static_cast<size_t>(t)] = copy;
      }
      t = nhwc_of_edge[static_cast<size_t>(t)];
    }
  }

  // An op whose semantics need NCHW element order: transpose rank-4 inputs back to NCHW
  // before it and its rank-4 output to NHWC after it.
  void WrapNchw(ir::Op op) {
    for (TensorId& t : op.inputs) {
      if (Rank4(t) && permute[static_cast<size_t>(t)]) {
        t = Transpose(t, Final(t), kNhwcToNchw, ".nchw", op.name + ".to_nchw");
      }
    }
    const TensorId y = op.outputs[0];
    if (Rank4(y) && permute[static_cast<size_t>(y)]) {
      ir::Tensor t = g.tensor(y);
      t.name = tensor_names.Unique(t.name + ".nchw");
      const TensorId mid = g.AddTensor(std::move(t));
      permute.push_back(false), edge.push_back(false), nhwc_of_edge.push_back(-1);
      op.outputs[0] = mid;
      const std::string name = op.name;
      out.push_back(std::move(op));
      out.push_back(ir::MakeOp(OpType::kTranspose, Name(name + ".to_nhwc"), {mid}, {y},
                               ir::TransposeAttrs{{kNchwToNhwc, kNchwToNhwc + 4}}));
      return;
    }
    out.push_back(std::move(op));
  }

  Status Rewrite(ir::Op op) {
    const bool edge_op = (op.type == OpType::kQuantize || op.type == OpType::kDequantize);
    if (!edge_op) InteriorInputs(op);
    // An interior op writing an NCHW edge output writes an NHWC copy, transposed after it.
    TensorId edge_out = -1;
    if (!edge_op && edge[static_cast<size_t>(op.outputs[0])]) {
      edge_out = op.outputs[0];
      ir::Tensor t = g.tensor(edge_out);
      t.name = tensor_names.Unique(t.name + ".nhwc");
      op.outputs[0] = g.AddTensor(std::move(t));
      permute.push_back(true), edge.push_back(false), nhwc_of_edge.push_back(-1);
    }
    const TensorId x = op.inputs.empty() ? -1 : op.inputs[0];
    // (x in NHWC order: a permuted activation, or the NHWC copy of an NCHW edge input.)
    const bool x4 = x >= 0 && Rank4(x) &&
                    (permute[static_cast<size_t>(x)] ||
                     std::find(nhwc_of_edge.begin(), nhwc_of_edge.end(), x) != nhwc_of_edge.end());
    switch (op.type) {
      case OpType::kQConv2d:
        op.attrs_as<ir::QConv2dAttrs>().layout = ir::Layout::kNHWC;
        PermuteWeights(op.inputs[1], kNchwToNhwc, 0);  // OIHW -> OHWI
        out.push_back(std::move(op));
        break;
      case OpType::kQDwConv2d: {
        op.attrs_as<ir::QDwConv2dAttrs>().layout = ir::Layout::kNHWC;
        static constexpr int64_t kToOneHwc[] = {1, 2, 3, 0};
        PermuteWeights(op.inputs[1], kToOneHwc, 3);
        out.push_back(std::move(op));
        break;
      }
      case OpType::kQAvgPool2d:
      case OpType::kQMaxPool2d:
        op.attrs_as<ir::QPool2dAttrs>().layout = ir::Layout::kNHWC;
        out.push_back(std::move(op));
        break;
      case OpType::kFConv2d:  // float models (fold-float): the int8 ops' layouts
        op.attrs_as<ir::FConv2dAttrs>().layout = ir::Layout::kNHWC;
        PermuteWeights(op.inputs[1], kNchwToNhwc, 0);  // OIHW -> OHWI
        out.push_back(std::move(op));
        break;
      case OpType::kFDwConv2d: {
        op.attrs_as<ir::FConv2dAttrs>().layout = ir::Layout::kNHWC;
        static constexpr int64_t kToOneHwc[] = {1, 2, 3, 0};
        PermuteWeights(op.inputs[1], kToOneHwc, 3);
        out.push_back(std::move(op));
        break;
      }
      case OpType::kFAvgPool2d:
      case OpType::kFMaxPool2d:
        op.attrs_as<ir::FPool2dAttrs>().layout = ir::Layout::kNHWC;
        out.push_back(std::move(op));
        break;
      case OpType::kResize:
        op.attrs_as<ir::ResizeAttrs>().layout = ir::Layout::kNHWC;
        out.push_back(std::move(op));
        break;
      case OpType::kQMean:
      case OpType::kQSum:
      case OpType::kQReduceMax:
      case OpType::kMean:  // a float model's (fold-float)
      case OpType::kSum:
      case OpType::kAmax:
        if (x4) TF_RETURN_IF_ERROR(Mean(op));
        out.push_back(std::move(op));
        break;
      case OpType::kArgMax:
        // Over C, the NHWC input gives the indices in NCHW order (N, H, W) either way;
        // over another axis the op reads the input transposed back to NCHW.
        if (x4 && *ir::NormalizeAxis(op.attrs_as<ir::ArgMaxAttrs>().axis, 4) == 1) {
          op.attrs_as<ir::ArgMaxAttrs>().axis = 3;
          out.push_back(std::move(op));
        } else {
          WrapNchw(std::move(op));
        }
        break;
      case OpType::kQSoftmax:
      case OpType::kQConcat:
      case OpType::kSoftmax:
      case OpType::kCat:
        if (x4) {
          const bool softmax = op.type == OpType::kQSoftmax || op.type == OpType::kSoftmax;
          int64_t& axis = softmax ? op.attrs_as<ir::SoftmaxAttrs>().axis
                                  : op.attrs_as<ir::CatAttrs>().axis;
          axis = kAxisToNhwc[*ir::NormalizeAxis(axis, 4)];
        }
        out.push_back(std::move(op));
        break;
      case OpType::kQPad:
      case OpType::kPad:
        if (x4) {
          auto& p = op.type == OpType::kQPad ? op.attrs_as<ir::QPadAttrs>().padding
                                             : op.attrs_as<ir::PadAttrs>().padding;
          const std::vector<int64_t> old = p;
          for (size_t i = 0; i < 4; ++i) {
            p[2 * i] = old[2 * static_cast<size_t>(kNchwToNhwc[i])];
            p[2 * i + 1] = old[2 * static_cast<size_t>(kNchwToNhwc[i]) + 1];
          }
        }
        out.push_back(std::move(op));
        break;
      case OpType::kSlice:
        if (x4) {
          auto& a = op.attrs_as<ir::SliceAttrs>();
          for (std::vector<int64_t>* v : {&a.begin, &a.end, &a.stride}) {
            *v = PermuteShape(*v, kNchwToNhwc);
          }
        }
        out.push_back(std::move(op));
        break;
      case OpType::kCumsum:
        if (x4) {
          int64_t& axis = op.attrs_as<ir::CumsumAttrs>().axis;
          axis = kAxisToNhwc[*ir::NormalizeAxis(axis, 4)];
        }
        out.push_back(std::move(op));
        break;
      case OpType::kBinary:
      case OpType::kQAdd:
      case OpType::kQSub:
      case OpType::kQSquaredDifference:
      case OpType::kQMaximum:
      case OpType::kQMinimum:
      case OpType::kQMul:
      case OpType::kQPrelu: {
        const size_t r0 = g.tensor(op.inputs[0]).shape.size();
        const size_t r1 = g.tensor(op.inputs[1]).shape.size();
        if ((r0 == 4 || r1 == 4) && r0 != r1) {
          return Error(std::string(ir::OpTypeName(op.type)) + " '" + op.name +
                       "' broadcasts a rank-4 tensor with a rank-" +
                       std::to_string(r0 == 4 ? r1 : r0) +
                       " one: not supported by the layout pass");
        }
        out.push_back(std::move(op));
        break;
      }
      case OpType::kReshape:
        if (flatten_into_fc.count(op.name)) {
          out.push_back(std::move(op));  // the qfc weights were permuted instead
          break;
        }
        WrapNchw(std::move(op));
        break;
      case OpType::kGather:
        // A gather of a 1-D index list along one axis picks positions of that axis, the
        // same in either order: its axis is renumbered (a reflect pad's gathers along H and
        // W copy rows of W * C and C bytes in NHWC, not single bytes). Other index shapes
        // address PyTorch's element order: the op reads the input transposed back.
        if (x4 && g.tensor(op.inputs[1]).shape.size() == 1) {
          int64_t& axis = op.attrs_as<ir::GatherAttrs>().axis;
          axis = kAxisToNhwc[*ir::NormalizeAxis(axis, 4)];
          out.push_back(std::move(op));
        } else {
          WrapNchw(std::move(op));
        }
        break;
      case OpType::kTranspose:
      case OpType::kQFc:
      case OpType::kFFc:
      case OpType::kQBmm:  // matrices over the last two dims: PyTorch's element order
      case OpType::kQLayerNorm:  // normalizes the last dim: W of NCHW
      case OpType::kMatmul:
      case OpType::kLayerNorm:
        WrapNchw(std::move(op));
        break;
      default:  // elementwise: requantize, qlut, quantize, dequantize, unary
        out.push_back(std::move(op));
        break;
    }
    if (edge_out >= 0) {
      const TensorId inner = out.back().outputs[0];
      out.push_back(ir::MakeOp(OpType::kTranspose, Name(out.back().name + ".to_nchw"), {inner},
                               {edge_out}, ir::TransposeAttrs{{kNhwcToNchw, kNhwcToNchw + 4}}));
    }
    return OkStatus();
  }

  std::set<std::string> flatten_into_fc;  // reshapes whose qfc weights take the permutation
  std::set<TensorId> permuted_weights;
  TensorNames tensor_names{{&g.tensors}};
  NameIndex<ir::Op> op_names{{&out}};  // (the input ops are moved out of g.ops meanwhile)
  void PermuteWeights(TensorId w, std::span<const int64_t> perm, int64_t channel_axis) {
    if (!permuted_weights.insert(w).second) return;
    ir::Tensor& t = g.tensor(w);
    PermuteConstant(t, perm);
    if (t.quant && t.quant->per_channel()) t.quant->axis = channel_axis;
  }

  Status Mean(ir::Op& op) {
    auto& a = op.attrs_as<ir::MeanAttrs>();
    TF_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ir::NormalizeMeanDims(a, 4));
    if (!a.keepdim) {
      // The kept dims must come out in the same order in both layouts.
      std::vector<int64_t> kept;
      for (int64_t d = 0; d < 4; ++d) {
        if (!std::binary_search(dims.begin(), dims.end(), d)) kept.push_back(kAxisToNhwc[d]);
      }
      if (!std::is_sorted(kept.begin(), kept.end())) {
        return Error("mean '" + op.name + "' without keepdim reorders the kept dims in NHWC");
      }
    }
    for (int64_t& d : dims) d = kAxisToNhwc[d];
    std::sort(dims.begin(), dims.end());
    a.dims = dims;
    return OkStatus();
  }
};

// A reshape [N,C,H,W] -> [N,C*H*W] of an interior NHWC activation whose only readers are
// qfc ops (as x) with constant weights [out, C*H*W] read by no other op: permutes those
// weights' columns from (c,h,w) to (h,w,c) order, so that the flatten of the NHWC data
// computes the same products. Returns the names of the reshapes that need no transpose.
std::set<std::string> FlattenIntoFc(ir::Graph& g, const std::vector<bool>& permuted) {
  std::set<std::string> done;
  const auto consumers = ir::ComputeConsumers(g);
  std::vector<bool> is_output(g.tensors.size(), false);
  for (TensorId t : g.outputs) is_output[static_cast<size_t>(t)] = true;
  for (const ir::Op& op : g.ops) {
    if (op.type != OpType::kReshape) continue;
    const TensorId x = op.inputs[0], y = op.outputs[0];
    const ir::Shape& xs = g.tensor(x).shape;
    const ir::Shape& ys = g.tensor(y).shape;
    if (xs.size() != 4 || !permuted[static_cast<size_t>(x)] || ys.size() != 2 ||
        ys[0] != xs[0] || ys[1] != xs[1] * xs[2] * xs[3] || is_output[static_cast<size_t>(y)]) {
      continue;
    }
    const auto& readers = consumers[static_cast<size_t>(y)];
    bool ok = !readers.empty();
    for (int r : readers) {
      const ir::Op& fc = g.ops[static_cast<size_t>(r)];
      ok = ok && (fc.type == OpType::kQFc || fc.type == OpType::kFFc) && fc.inputs[0] == y && fc.inputs[1] != y;
      if (!ok) break;
      const ir::Tensor& w = g.tensor(fc.inputs[1]);
      ok = w.is_constant() && w.shape.size() == 2 && w.shape[1] == ys[1] &&
           consumers[static_cast<size_t>(fc.inputs[1])].size() == 1;
    }
    if (!ok) continue;
    for (int r : readers) {
      ir::Tensor& w = g.tensor(g.ops[static_cast<size_t>(r)].inputs[1]);
      const int64_t rows = w.shape[0];
      w.shape = {rows, xs[1], xs[2], xs[3]};
      PermuteConstant(w, kNchwToNhwc);  // [out,C,H,W] -> [out,H,W,C]; axis 0 unchanged
      w.shape = {rows, ys[1]};
    }
    done.insert(op.name);
  }
  return done;
}

}  // namespace

// Clears `permute` for the groups of rank-4 tensors (joined by the ops that read or write
// them) that hold no graph edge tensor and touch no spatial op (see the file comment).
static void KeepMatrixGroups(const ir::Graph& g, const std::vector<bool>& at_edge,
                             std::vector<bool>& permute) {
  const size_t n = g.tensors.size();
  std::vector<size_t> root(n);
  for (size_t t = 0; t < n; ++t) root[t] = t;
  auto find = [&](size_t t) {
    while (root[t] != t) t = root[t] = root[root[t]];
    return t;
  };
  std::vector<bool> spatial(n, false);
  for (const ir::Op& op : g.ops) {
    // A transpose joins nothing: its input and output may each keep their own order (a
    // channels-last block between a conv's permute(0, 2, 3, 1) and permute(0, 3, 1, 2),
    // as ConvNeXt's: the transposes the pass then writes around the permutes compose to
    // identities, which remove-noops drops).
    if (op.type == OpType::kTranspose) continue;
    const bool needs_nhwc = op.type == OpType::kQConv2d || op.type == OpType::kQDwConv2d ||
                            op.type == OpType::kQAvgPool2d || op.type == OpType::kQMaxPool2d ||
                            op.type == OpType::kResize || op.type == OpType::kFConv2d ||
                            op.type == OpType::kFDwConv2d || op.type == OpType::kFAvgPool2d ||
                            op.type == OpType::kFMaxPool2d;
    std::vector<size_t> four;
    for (const auto* list : {&op.inputs, &op.outputs}) {
      for (TensorId t : *list) {
        if (permute[static_cast<size_t>(t)]) four.push_back(static_cast<size_t>(t));
      }
    }
    for (size_t t : four) {
      root[find(t)] = find(four[0]);
      if (needs_nhwc) spatial[t] = true;
    }
  }
  std::vector<bool> keep_group(n, true);  // by root: no spatial op, no edge tensor
  for (size_t t = 0; t < n; ++t) {
    if (permute[t] && (spatial[t] || at_edge[t])) keep_group[find(t)] = false;
  }
  for (size_t t = 0; t < n; ++t) {
    if (permute[t] && keep_group[find(t)]) permute[t] = false;
  }
}

// A qsoftmax over another axis than the last reads a transpose that moves that axis last
// and writes through the inverse one: the kernels run over the innermost dim (rows x depth,
// dense). Exact: transposes only move int8 values. (A transpose that moves only size-1 dims
// becomes a view in remove-noops.) Returns false (nothing done) for any other op.
static bool SoftmaxOverLastAxis(ir::Graph& g, ir::Op& op, TensorNames& tensor_names,
                                NameIndex<ir::Op>& op_names) {
  if (op.type != OpType::kQSoftmax) return false;
  const int64_t rank = static_cast<int64_t>(g.tensor(op.inputs[0]).shape.size());
  const auto axis = rank > 1 ? ir::NormalizeAxis(op.attrs_as<ir::SoftmaxAttrs>().axis, rank)
                             : std::optional<int64_t>();
  if (!axis || *axis == rank - 1) return false;
  std::vector<int64_t> perm, inv(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    if (d != *axis) perm.push_back(d);
  }
  perm.push_back(*axis);
  for (int64_t i = 0; i < rank; ++i) inv[static_cast<size_t>(perm[static_cast<size_t>(i)])] = i;
  auto moved = [&](TensorId t) {
    ir::Tensor c = g.tensor(t);
    c.data.reset();
    c.name = tensor_names.Unique(c.name + ".axis_last");
    c.shape = PermuteShape(c.shape, perm);
    return g.AddTensor(std::move(c));
  };
  const TensorId x = moved(op.inputs[0]);
  const TensorId y = moved(op.outputs[0]);
  g.ops.push_back(ir::MakeOp(OpType::kTranspose, op_names.Unique(op.name + ".axis_last"),
                             {op.inputs[0]}, {x}, ir::TransposeAttrs{perm}));
  const TensorId out = op.outputs[0];
  const std::string name = op.name;
  op.inputs[0] = x, op.outputs[0] = y;
  op.attrs_as<ir::SoftmaxAttrs>().axis = rank - 1;
  g.ops.push_back(std::move(op));
  g.ops.push_back(ir::MakeOp(OpType::kTranspose, op_names.Unique(name + ".axis_back"), {y},
                             {out}, ir::TransposeAttrs{inv}));
  return true;
}

// A reduction (qmean, qsum, qreduce_max; a float model's mean, sum, amax) whose reduced dims are not one run in the final
// layout (e.g. H and C of NHWC) reads a transpose that moves the kept dims first and the
// reduced ones last; a reshape restores keepdim's size-1 dims. Exact: the transpose only
// moves int8 values, and the kernels sum in int32 in any order. The same walk moves each
// qsoftmax axis last (SoftmaxOverLastAxis).
static Status ContiguousReductions(ir::Graph& g) {
  TensorNames tensor_names{{&g.tensors}};
  std::vector<ir::Op> ops = std::move(g.ops);
  g.ops.clear();
  NameIndex<ir::Op> op_names{{&ops, &g.ops}};
  for (ir::Op& op : ops) {
    if (SoftmaxOverLastAxis(g, op, tensor_names, op_names)) continue;
    const bool reduce = op.type == OpType::kQMean || op.type == OpType::kQSum ||
                        op.type == OpType::kQReduceMax || op.type == OpType::kMean ||
                        op.type == OpType::kSum || op.type == OpType::kAmax;
    if (!reduce) {
      g.ops.push_back(std::move(op));
      continue;
    }
    const ir::Shape xs = g.tensor(op.inputs[0]).shape;
    const int64_t rank = static_cast<int64_t>(xs.size());
    auto& a = op.attrs_as<ir::MeanAttrs>();
    TF_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ir::NormalizeMeanDims(a, rank));
    std::vector<int32_t> dims32(xs.begin(), xs.end()), axes32(dims.begin(), dims.end());
    if (quant::ReductionIsOneRun(dims32, axes32)) {
      g.ops.push_back(std::move(op));
      continue;
    }
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < rank; ++d) {
      if (!std::binary_search(dims.begin(), dims.end(), d)) perm.push_back(d);
    }
    const int64_t kept = static_cast<int64_t>(perm.size());
    perm.insert(perm.end(), dims.begin(), dims.end());
    ir::Tensor t = g.tensor(op.inputs[0]);
    t.data.reset();
    t.name = tensor_names.Unique(t.name + ".reduce_last");
    t.shape = PermuteShape(xs, perm);
    const TensorId moved = g.AddTensor(std::move(t));
    g.ops.push_back(ir::MakeOp(OpType::kTranspose, op_names.Unique(op.name + ".reduce_last"),
                               {op.inputs[0]}, {moved}, ir::TransposeAttrs{perm}));
    op.inputs[0] = moved;
    a.dims.clear();
    for (int64_t d = kept; d < rank; ++d) a.dims.push_back(d);
    if (!a.keepdim) {
      g.ops.push_back(std::move(op));
      continue;
    }
    a.keepdim = false;
    const TensorId y = op.outputs[0];
    ir::Tensor z = g.tensor(y);
    z.name = tensor_names.Unique(z.name + ".kept");
    z.shape.clear();
    for (int64_t d = 0; d < rank; ++d) {
      if (!std::binary_search(dims.begin(), dims.end(), d)) z.shape.push_back(xs[static_cast<size_t>(d)]);
    }
    const TensorId zid = g.AddTensor(std::move(z));
    op.outputs[0] = zid;
    const std::string name = op.name;
    g.ops.push_back(std::move(op));
    g.ops.push_back(ir::MakeOp(OpType::kReshape, op_names.Unique(name + ".keepdim"), {zid}, {y},
                               ir::ReshapeAttrs{g.tensor(y).shape}));
  }
  return OkStatus();
}

// A binary elementwise op broadcasting a rank-4 tensor against a lower-rank one (x -
// x.mean(), x + torch.min(x): a full reduction is rank 0) reads the lower-rank operand
// through a reshape to rank 4 with leading 1s (NumPy broadcasting aligns the trailing dims,
// so the meaning is the same); the layout pass then treats both alike.
static void RankFourOperands(ir::Graph& g) {
  TensorNames names{{&g.tensors}};
  std::vector<ir::Op> out;
  NameIndex<ir::Op> op_names{{&g.ops, &out}};
  op_names.Unique("");  // indexes the op names before the ops move
  for (ir::Op& op : g.ops) {
    const bool binary = op.type == OpType::kBinary || op.type == OpType::kQAdd ||
                        op.type == OpType::kQSub || op.type == OpType::kQSquaredDifference ||
                        op.type == OpType::kQMaximum || op.type == OpType::kQMinimum ||
                        op.type == OpType::kQMul || op.type == OpType::kQPrelu;
    if (binary && op.inputs.size() >= 2) {
      const size_t r0 = g.tensor(op.inputs[0]).shape.size();
      const size_t r1 = g.tensor(op.inputs[1]).shape.size();
      if ((r0 == 4) != (r1 == 4)) {
        TensorId& low = r0 == 4 ? op.inputs[1] : op.inputs[0];
        ir::Tensor t = g.tensor(low);
        if (t.shape.size() < 4) {
          const int64_t added = 4 - static_cast<int64_t>(t.shape.size());
          t.shape.insert(t.shape.begin(), static_cast<size_t>(added), 1);
          if (t.quant && t.quant->per_channel()) *t.quant->axis += added;  // (a slope per C)
          t.name = names.Unique(t.name + ".rank4");
          if (t.is_constant()) {
            low = g.AddTensor(std::move(t));  // the same bytes
          } else {
            const ir::Shape shape = t.shape;
            const TensorId y = g.AddTensor(std::move(t));
            out.push_back(ir::MakeOp(OpType::kReshape, op_names.Unique(op.name + ".rank4"),
                                     {low}, {y}, ir::ReshapeAttrs{shape}));
            low = y;
          }
        }
      }
    }
    out.push_back(std::move(op));
  }
  g.ops = std::move(out);
}

Status ToNhwc(ir::Graph& g, const PassOptions& options) {
  if (g.kind != ir::GraphKind::kInt8) {
    return Error("needs a lowered graph (kind int8): run fold-qdq first");
  }
  // Already done (or a .tflite import): only the reductions' runs (and softmax axes) remain.
  if (g.layout == ir::Layout::kNHWC) return ContiguousReductions(g);
  RankFourOperands(g);
  TF_RETURN_IF_ERROR(Lift1d(g));  // lift_1d.cc: [N, C, L] between Conv1d layers -> [N, C, 1, L]
  const size_t n = g.tensors.size();
  Rewriter r{g, options, std::vector<bool>(n, false), std::vector<bool>(n, false),
             std::vector<TensorId>(n, -1), {}, {}, {}};
  const std::vector<bool> at_edge = EdgeTensors(g);
  // Conv weights are rewritten by their ops; every other rank-4 tensor is an activation.
  std::vector<bool> weight(n, false);
  for (const ir::Op& op : g.ops) {
    if (op.type == OpType::kQConv2d || op.type == OpType::kQDwConv2d ||
        op.type == OpType::kFConv2d || op.type == OpType::kFDwConv2d) {
      weight[static_cast<size_t>(op.inputs[1])] = true;
    }
  }
  for (size_t t = 0; t < n; ++t) {
    // int32 activations are argmax indices: they keep the NCHW order (see kArgMax below).
    if (g.tensors[t].shape.size() != 4 || weight[t] || g.tensors[t].dtype == ir::DType::kInt32) {
      continue;
    }
    const bool keep_nchw = options.io_layout == ir::Layout::kNCHW && at_edge[t];
    r.edge[t] = keep_nchw;
    r.permute[t] = !keep_nchw;
  }
  KeepMatrixGroups(g, at_edge, r.permute);
  r.flatten_into_fc = FlattenIntoFc(g, r.permute);
  std::vector<ir::Op> ops = std::move(g.ops);
  g.ops.clear();
  for (ir::Op& op : ops) {
    TF_RETURN_IF_ERROR(r.Rewrite(std::move(op)));
  }
  g.ops = std::move(r.out);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    ir::Tensor& desc = g.tensors[t];
    desc.pytorch_order = !r.permute[t] && !r.edge[t] && desc.shape.size() == 4 &&
                         !desc.is_constant() && desc.dtype != ir::DType::kInt32;
    if (!r.permute[t]) continue;
    if (desc.is_constant()) {
      PermuteConstant(desc, kNchwToNhwc);
    } else {
      desc.shape = PermuteShape(desc.shape, kNchwToNhwc);
    }
  }
  g.layout = ir::Layout::kNHWC;
  g.io_layout = options.io_layout;
  return ContiguousReductions(g);
}

}  // namespace tinyforge::passes
