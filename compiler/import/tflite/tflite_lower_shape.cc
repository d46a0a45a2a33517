// Data movement with a runtime kernel (TRANSPOSE, SLICE, STRIDED_SLICE, SPLIT, SPLIT_V,
// PACK, UNPACK: IR transpose, slice, qconcat and reshape views; EXPAND_DIMS: a reshape view)
// and the shape arithmetic of graphs saved with a dynamic batch: SHAPE of a tensor, and
// STRIDED_SLICE / PACK / CONCATENATION / GATHER / REDUCE_PROD / RESHAPE / EXPAND_DIMS on the
// integers it gives, are computed here for batch 1 (every TFLite tensor's `shape` has the
// batch resolved to 1) and leave no op; the RESHAPE / TRANSPOSE_CONV they feed reads the
// folded value.
#include <algorithm>

#include "import/tflite/tflite_lower_internal.h"
#include "kernels/concat/concat_limits.h"

namespace tinyforge::import::tflite::internal {
namespace {

bool IsInt(const TfTensor& t) {
  return t.type == static_cast<int8_t>(TfType::kInt32) ||
         t.type == static_cast<int8_t>(TfType::kInt64);
}

// A constant (or folded) integer operand.
Expected<std::vector<int64_t>> Ints(const Lowering& l, size_t i, const std::string& what) {
  const std::string field = "inputs[" + std::to_string(i) + "]";
  const TfTensor* t = l.In(i);
  if (!t || !IsInt(*t)) return l.Fail(field + ": " + what + " must be INT32");
  auto v = l.KnownInts(l.InIndex(i));
  if (!v) return l.Fail(field + ": " + what + " must be a constant (or computed from SHAPE)");
  return *v;
}

// Normalizes an axis of a rank-`rank` tensor (negative counts from the end).
Expected<int64_t> Axis(const Lowering& l, int64_t axis, size_t rank, const std::string& field) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    return l.Fail(field + ": axis " + std::to_string(axis) + " is out of range for rank " +
                  std::to_string(rank));
  }
  return axis < 0 ? axis + r : axis;
}

// y = x[begin : begin + size : stride] as an IR slice (and a reshape when y drops dims),
// into TFLite output `out`.
void AddSlice(Lowering& l, int32_t in, int32_t out, const ir::SliceAttrs& a,
              const std::string& suffix) {
  const TfTensor& x = l.model().tensors[static_cast<size_t>(in)];
  const TfTensor& y = l.model().tensors[static_cast<size_t>(out)];
  ir::Shape sliced;
  for (size_t d = 0; d < a.begin.size(); ++d) {
    sliced.push_back((a.end[d] - a.begin[d] + a.stride[d] - 1) / a.stride[d]);
  }
  if (Shape64(y.shape) == sliced) {
    l.AddOp(ir::OpType::kSlice, {l.Tensor(in)}, {l.Tensor(out)}, a, suffix);
    return;
  }
  const ir::TensorId mid = l.AddActivation(y.name + ".slice", sliced, x);
  l.AddOp(ir::OpType::kSlice, {l.Tensor(in)}, {mid}, a, suffix);
  l.AddOp(ir::OpType::kReshape, {mid}, {l.Tensor(out)}, ir::ReshapeAttrs{Shape64(y.shape)},
          suffix + ".reshape");
}

ir::SliceAttrs Whole(const std::vector<int32_t>& shape) {
  ir::SliceAttrs a;
  for (int32_t d : shape) a.begin.push_back(0), a.end.push_back(d), a.stride.push_back(1);
  return a;
}

Status ExpectSameAct(Lowering& l, const TfTensor& x, const TfTensor& y, const std::string& field,
                     const std::string& op) {
  TF_RETURN_IF_ERROR(l.ExpectAct(&y, field));
  return l.ExpectSameQuant(&y, field, &x, "inputs[0]", op + " moves bytes and does not rescale");
}

// The prologue of TRANSPOSE, EXPAND_DIMS, TILE and REVERSE_V2: options, one int8 activation
// and one constant int vector in, an activation of the same quantization out (REVERSE_V2:
// `same_quant` false, any per-tensor quantization). Returns inputs[0].
Expected<const TfTensor*> ExpectMoveWithInts(Lowering& l, Options options, const std::string& op,
                                             bool same_quant = true) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(options, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(2, 2, 1));
  const TfTensor& x = *l.In(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  TF_RETURN_IF_ERROR(same_quant ? ExpectSameAct(l, x, *l.Out(0), "outputs[0]", op)
                                : l.ExpectAct(l.Out(0), "outputs[0]"));
  return &x;
}

}  // namespace

Status LowerTranspose(Lowering& l) {
  TF_ASSIGN_OR_RETURN(const TfTensor* in, ExpectMoveWithInts(l, Options::TransposeOptions, "TRANSPOSE"));
  const TfTensor& x = *in;
  TF_ASSIGN_OR_RETURN(std::vector<int64_t> perm, Ints(l, 1, "perm"));
  std::vector<bool> seen(x.shape.size(), false);
  std::vector<int32_t> want;
  for (int64_t& p : perm) {
    TF_ASSIGN_OR_RETURN(p, Axis(l, p, x.shape.size(), "inputs[1]"));
    if (seen[static_cast<size_t>(p)]) return l.Fail("inputs[1]: perm repeats dim " + std::to_string(p));
    seen[static_cast<size_t>(p)] = true;
    want.push_back(x.shape[static_cast<size_t>(p)]);
  }
  if (perm.size() != x.shape.size()) {
    return l.Fail("inputs[1]: perm has " + std::to_string(perm.size()) + " entries, the input " +
                  std::to_string(x.shape.size()) + " dims");
  }
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  l.AddOp(ir::OpType::kTranspose, {l.Tensor(l.InIndex(0))}, {l.Tensor(l.op().outputs[0])},
          ir::TransposeAttrs{perm});
  return OkStatus();
}

Status LowerSlice(Lowering& l) {
  const bool strided = l.op().code == op::kStridedSlice;
  TF_RETURN_IF_ERROR(l.ExpectOptions(strided ? Options::StridedSliceOptions : Options::SliceOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(3, strided ? 4 : 3, 1));
  const TfTensor& x = *l.In(0);
  const TfTensor& y = *l.Out(0);
  const TfOptions& o = l.op().options;
  TF_ASSIGN_OR_RETURN(std::vector<int64_t> begin, Ints(l, 1, "begin"));
  TF_ASSIGN_OR_RETURN(std::vector<int64_t> end_or_size, Ints(l, 2, strided ? "end" : "size"));
  std::vector<int64_t> strides(begin.size(), 1);
  if (strided && l.In(3)) {
    TF_ASSIGN_OR_RETURN(strides, Ints(l, 3, "strides"));
  }
  const size_t rank = x.shape.size();
  if (begin.size() != rank || end_or_size.size() != rank || strides.size() != rank) {
    return l.Fail("inputs[1]: begin, " + std::string(strided ? "end, strides" : "size") +
                  " need one entry per input dim (" + std::to_string(rank) + ")");
  }
  if (strided && (o.ellipsis_mask != 0 || o.new_axis_mask != 0)) {
    return l.Fail("ellipsis_mask / new_axis_mask: not supported (" +
                  std::to_string(o.ellipsis_mask) + ", " + std::to_string(o.new_axis_mask) + ")");
  }
  // Resolved per dim as TFLite's StridedSlice / Slice do (positive strides only).
  ir::SliceAttrs a;
  std::vector<int32_t> want;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t n = x.shape[d];
    const int64_t s = strides[d];
    if (s < 1) return l.Fail("inputs[3]: stride " + std::to_string(s) + " (only positive strides)");
    int64_t b = begin[d], e;
    const bool shrink = strided && ((o.shrink_axis_mask >> d) & 1);
    if (strided) {
      e = end_or_size[d];
      if (o.offset) e += b;
      if ((o.begin_mask >> d) & 1) b = 0;
      if ((o.end_mask >> d) & 1) e = n;
      if (b < 0) b += n;
      if (e < 0) e += n;
      b = std::clamp<int64_t>(b, 0, n);
      e = std::clamp<int64_t>(e, 0, n);
      if (shrink) e = b + 1;
    } else {
      e = end_or_size[d] == -1 ? n : b + end_or_size[d];
    }
    if (b < 0 || b >= e || e > n) {
      return l.Fail("inputs[1]: dim " + std::to_string(d) + ": the slice [" + std::to_string(b) +
                    ", " + std::to_string(e) + ") of " + std::to_string(n) +
                    " is empty or out of range");
    }
    a.begin.push_back(b), a.end.push_back(e), a.stride.push_back(s);
    if (!shrink) want.push_back(static_cast<int32_t>((e - b + s - 1) / s));
  }
  // Integers (the shape arithmetic of a dynamic batch): computed here, no op.
  if (IsInt(x)) {
    auto v = l.KnownInts(l.InIndex(0));
    if (!v || rank != 1) {
      return l.Fail("inputs[0]: an INT32 slice needs a constant 1-D input (or one computed "
                    "from SHAPE)");
    }
    std::vector<int64_t> out;
    for (int64_t i = a.begin[0]; i < a.end[0]; i += a.stride[0]) out.push_back((*v)[static_cast<size_t>(i)]);
    l.SetKnownInts(l.op().outputs[0], std::move(out));
    return OkStatus();
  }
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  TF_RETURN_IF_ERROR(ExpectSameAct(l, x, y, "outputs[0]", l.op().name()));
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  AddSlice(l, l.InIndex(0), l.op().outputs[0], a, "");
  return OkStatus();
}

Status LowerSplit(Lowering& l) {
  const bool v = l.op().code == op::kSplitV;
  TF_RETURN_IF_ERROR(l.ExpectOptions(v ? Options::SplitVOptions : Options::SplitOptions, true));
  const size_t outs = l.op().outputs.size();
  if (outs < 1) return l.Fail("outputs: none");
  TF_RETURN_IF_ERROR(l.ExpectCounts(v ? 3 : 2, v ? 3 : 2, outs));
  // SPLIT: (axis, x); SPLIT_V: (x, size_splits, axis).
  const size_t xi = v ? 0 : 1;
  const TfTensor& x = *l.In(xi);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[" + std::to_string(xi) + "]"));
  TF_ASSIGN_OR_RETURN(std::vector<int64_t> axis_v, Ints(l, v ? 2 : 0, "axis"));
  if (axis_v.size() != 1) return l.Fail("axis: must hold one value");
  TF_ASSIGN_OR_RETURN(int64_t axis, Axis(l, axis_v[0], x.shape.size(), "axis"));
  const int64_t n = x.shape[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  if (v) {
    TF_ASSIGN_OR_RETURN(sizes, Ints(l, 1, "size_splits"));
    int64_t known = 0, unknown = -1;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == -1 && unknown < 0) {
        unknown = static_cast<int64_t>(i);
      } else {
        known += sizes[i];
      }
    }
    if (unknown >= 0) sizes[static_cast<size_t>(unknown)] = n - known;
  } else {
    if (n % static_cast<int64_t>(outs) != 0) {
      return l.Fail("axis: dim " + std::to_string(n) + " does not split into " +
                    std::to_string(outs) + " equal parts");
    }
    sizes.assign(outs, n / static_cast<int64_t>(outs));
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  if (sizes.size() != outs || total != n ||
      std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s < 1; })) {
    return l.Fail("size_splits: the sizes do not split dim " + std::to_string(n) + " into " +
                  std::to_string(outs) + " non-empty parts");
  }
  int64_t start = 0;
  for (size_t k = 0; k < outs; ++k) {
    const TfTensor& y = *l.Out(k);
    TF_RETURN_IF_ERROR(ExpectSameAct(l, x, y, "outputs[" + std::to_string(k) + "]", l.op().name()));
    ir::SliceAttrs a = Whole(x.shape);
    a.begin[static_cast<size_t>(axis)] = start;
    a.end[static_cast<size_t>(axis)] = start + sizes[k];
    std::vector<int32_t> want = x.shape;
    want[static_cast<size_t>(axis)] = static_cast<int32_t>(sizes[k]);
    if (y.shape != want) {
      return l.Fail("outputs[" + std::to_string(k) + "]: shape " + ShapeText(y.shape) +
                    ", but the operands give " + ShapeText(want));
    }
    AddSlice(l, l.InIndex(xi), l.op().outputs[k], a, "." + std::to_string(k));
    start += sizes[k];
  }
  return OkStatus();
}

Status LowerPack(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::PackOptions, true));
  const size_t n = l.op().inputs.size();
  TF_RETURN_IF_ERROR(l.ExpectCounts(1, 1 << 20, 1));
  const TfTensor& x0 = *l.In(0);
  const TfTensor& y = *l.Out(0);
  TF_ASSIGN_OR_RETURN(int64_t axis, Axis(l, l.op().options.axis, x0.shape.size() + 1, "axis"));
  if (IsInt(x0)) {  // shape arithmetic: scalars or vectors stacked
    std::vector<int64_t> out;
    for (size_t i = 0; i < n; ++i) {
      auto v = l.KnownInts(l.InIndex(i));
      if (!v || v->size() != 1 || axis != 0) {
        return l.Fail("inputs[" + std::to_string(i) + "]: an INT32 PACK needs constant scalars "
                      "(or ones computed from SHAPE)");
      }
      out.push_back((*v)[0]);
    }
    l.SetKnownInts(l.op().outputs[0], std::move(out));
    return OkStatus();
  }
  // int8: each input viewed with a size-1 dim at `axis`, concatenated along it.
  std::vector<int64_t> expanded = Shape64(x0.shape);
  expanded.insert(expanded.begin() + axis, 1);
  std::vector<ir::TensorId> parts;
  for (size_t i = 0; i < n; ++i) {
    const TfTensor& x = *l.In(i);
    const std::string field = "inputs[" + std::to_string(i) + "]";
    TF_RETURN_IF_ERROR(l.ExpectAct(&x, field));
    TF_RETURN_IF_ERROR(l.ExpectSameQuant(&x, field, &y, "outputs[0]", "PACK does not rescale"));
    if (x.shape != x0.shape) return l.Fail(field + ": shape differs from inputs[0]");
    const ir::TensorId v = l.AddActivation(x.name + ".expanded", expanded, x);
    l.AddOp(ir::OpType::kReshape, {l.Tensor(l.InIndex(i))}, {v}, ir::ReshapeAttrs{expanded},
            "." + std::to_string(i));
    parts.push_back(v);
  }
  std::vector<int32_t> want = x0.shape;
  want.insert(want.begin() + axis, static_cast<int32_t>(n));
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  ir::CatAttrs a;
  a.axis = axis;
  l.AddOp(ir::OpType::kQConcat, std::move(parts), {l.Tensor(l.op().outputs[0])}, a);
  return OkStatus();
}

Status LowerUnpack(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::UnpackOptions, true));
  const size_t outs = l.op().outputs.size();
  TF_RETURN_IF_ERROR(l.ExpectCounts(1, 1, outs));
  const TfTensor& x = *l.In(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  TF_ASSIGN_OR_RETURN(int64_t axis, Axis(l, l.op().options.axis, x.shape.size(), "axis"));
  if (static_cast<int64_t>(outs) != x.shape[static_cast<size_t>(axis)]) {
    return l.Fail("outputs: " + std::to_string(outs) + " outputs for dim " +
                  std::to_string(x.shape[static_cast<size_t>(axis)]));
  }
  for (size_t k = 0; k < outs; ++k) {
    TF_RETURN_IF_ERROR(
        ExpectSameAct(l, x, *l.Out(k), "outputs[" + std::to_string(k) + "]", "UNPACK"));
    ir::SliceAttrs a = Whole(x.shape);
    a.begin[static_cast<size_t>(axis)] = static_cast<int64_t>(k);
    a.end[static_cast<size_t>(axis)] = static_cast<int64_t>(k) + 1;
    AddSlice(l, l.InIndex(0), l.op().outputs[k], a, "." + std::to_string(k));
  }
  return OkStatus();
}

Status LowerExpandDims(Lowering& l) {
  if (FoldsInts(l)) return FoldIntOp(l);
  TF_ASSIGN_OR_RETURN(const TfTensor* in, ExpectMoveWithInts(l, Options::ExpandDimsOptions, "EXPAND_DIMS"));
  const TfTensor& x = *in;
  TF_ASSIGN_OR_RETURN(std::vector<int64_t> axis_v, Ints(l, 1, "axis"));
  if (axis_v.size() != 1) return l.Fail("inputs[1]: axis must hold one value");
  TF_ASSIGN_OR_RETURN(int64_t axis, Axis(l, axis_v[0], x.shape.size() + 1, "inputs[1]"));
  std::vector<int32_t> want = x.shape;
  want.insert(want.begin() + axis, 1);
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  l.AddOp(ir::OpType::kReshape, {l.Tensor(l.InIndex(0))}, {l.Tensor(l.op().outputs[0])},
          ir::ReshapeAttrs{Shape64(want)});
  return OkStatus();
}

// TILE of int8 values by constant multiples: per dim that grows, the tensor concatenated
// with itself (bit-exact copies; Keras 3's nearest UpSampling2D converts to TILE + RESHAPE).
Status LowerTile(Lowering& l) {
  TF_ASSIGN_OR_RETURN(const TfTensor* in, ExpectMoveWithInts(l, Options::TileOptions, "TILE"));
  const TfTensor& x = *in;
  TF_ASSIGN_OR_RETURN(std::vector<int64_t> mult, Ints(l, 1, "multiples"));
  if (mult.size() != x.shape.size()) {
    return l.Fail("inputs[1]: multiples must hold one value per dim of inputs[0]");
  }
  std::vector<int64_t> shape = Shape64(x.shape);
  std::vector<int32_t> want = x.shape;
  for (size_t d = 0; d < mult.size(); ++d) {
    if (mult[d] < 1 || mult[d] > TF_LIMIT_CONCAT_INPUTS) {
      return l.Fail("inputs[1]: multiple " + std::to_string(mult[d]) + " out of range [1, " +
                    std::to_string(TF_LIMIT_CONCAT_INPUTS) + "]");
    }
    want[d] = static_cast<int32_t>(x.shape[d] * mult[d]);
  }
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  size_t last = mult.size();
  for (size_t d = 0; d < mult.size(); ++d) {
    if (mult[d] > 1) last = d;
  }
  ir::TensorId cur = l.Tensor(l.InIndex(0));
  if (last == mult.size()) {  // all ones: a copy
    l.AddOp(ir::OpType::kReshape, {cur}, {l.Tensor(l.op().outputs[0])},
            ir::ReshapeAttrs{Shape64(want)});
    return OkStatus();
  }
  for (size_t d = 0; d <= last; ++d) {
    if (mult[d] == 1) continue;
    shape[d] *= mult[d];
    const ir::TensorId next = d == last ? l.Tensor(l.op().outputs[0])
                                        : l.AddActivation(x.name + ".tile" + std::to_string(d),
                                                          shape, x);
    ir::CatAttrs a;
    a.axis = static_cast<int64_t>(d);
    l.AddOp(ir::OpType::kQConcat, std::vector<ir::TensorId>(static_cast<size_t>(mult[d]), cur),
            {next}, a, "." + std::to_string(d));
    cur = next;
  }
  return OkStatus();
}

// REVERSE_V2 of int8 values along constant axes (Keras' Bidirectional: the backward loop's
// input sequence, and its output sequence back): per axis a `gather` of the constant indices
// n-1, ..., 0. Several axes chain gathers, which move the elements as one multi-axis reverse.
// TFLite's kernel copies the bytes even where the converter gave the output other
// quantization parameters than the input (seen: the reverse back of a return_sequences
// Bidirectional's backward output, Keras 3 LSTM and tf_keras GRU); the same bytes then go to
// the output through `qlut` with the identity table (y's parameters, no rescale).
namespace {

// One `gather` of constant indices per (axis, indices) step, in order, from the op's input to
// its output; the bytes are copied as they are (TFLite's REVERSE_V2 and MIRROR_PAD do not
// rescale), so an output quantized otherwise is relabelled by an identity table, which also
// copies the input when there is no step (a MIRROR_PAD of zero paddings).
Status GatherSteps(Lowering& l, const std::vector<std::pair<int64_t, std::vector<int32_t>>>& steps,
                   const std::string& tag) {
  const TfTensor& x = *l.In(0);
  const TfTensor& y = *l.Out(0);
  const bool relabel = steps.empty() || x.quant->scale[0] != y.quant->scale[0] ||
                       x.quant->zero_point[0] != y.quant->zero_point[0];
  ir::TensorId cur = l.Tensor(l.InIndex(0));
  std::vector<int32_t> shape = x.shape;
  for (size_t k = 0; k < steps.size(); ++k) {
    const int64_t ax = steps[k].first;
    const std::vector<int32_t>& idx = steps[k].second;
    auto p = quant::MakeGatherParams(shape, ax, false, static_cast<int32_t>(idx.size()));
    if (!p.ok()) return l.Fail(p.error().message());
    shape[static_cast<size_t>(ax)] = static_cast<int32_t>(idx.size());
    const std::string suffix = "." + std::to_string(ax);
    const ir::TensorId indices = l.AddInt32(x.name + "." + tag + suffix, idx);
    const ir::TensorId next = k + 1 == steps.size() && !relabel
                                  ? l.Tensor(l.op().outputs[0])
                                  : l.AddActivation(x.name + "." + tag + "ed" + suffix,
                                                    Shape64(shape), x);
    l.AddOp(ir::OpType::kGather, {cur, indices}, {next}, ir::GatherAttrs{ax, false}, suffix);
    cur = next;
  }
  if (relabel) {
    quant::LutTable same;
    for (size_t i = 0; i < same.size(); ++i) same[i] = static_cast<int8_t>(static_cast<uint8_t>(i));
    const ir::TensorId t = l.AddInt8Table(y.name + ".bytes", same, y);
    l.AddOp(ir::OpType::kQLut, {cur, t}, {l.Tensor(l.op().outputs[0])}, ir::NoAttrs{}, ".bytes");
  }
  return OkStatus();
}

}  // namespace

Status LowerReverse(Lowering& l) {
  TF_ASSIGN_OR_RETURN(const TfTensor* in,
                      ExpectMoveWithInts(l, Options::ReverseV2Options, "REVERSE_V2", false));
  const TfTensor& x = *in;
  TF_ASSIGN_OR_RETURN(std::vector<int64_t> axes, Ints(l, 1, "axis"));
  if (axes.empty()) return l.Fail("inputs[1]: axis holds no value");
  std::vector<bool> seen(x.shape.size(), false);
  std::vector<std::pair<int64_t, std::vector<int32_t>>> steps;
  for (int64_t& a : axes) {
    TF_ASSIGN_OR_RETURN(a, Axis(l, a, x.shape.size(), "inputs[1]"));
    if (seen[static_cast<size_t>(a)]) {
      return l.Fail("inputs[1]: axis " + std::to_string(a) + " is listed twice");
    }
    seen[static_cast<size_t>(a)] = true;
    const int32_t n = x.shape[static_cast<size_t>(a)];
    std::vector<int32_t> idx(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) idx[static_cast<size_t>(i)] = n - 1 - i;
    steps.emplace_back(a, std::move(idx));
  }
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(x.shape));
  return GatherSteps(l, steps, "reverse");
}

// MIRROR_PAD (REFLECT: the edge is not repeated, SYMMETRIC: it is): per padded dim, a gather
// of the source index of every output position.
Status LowerMirrorPad(Lowering& l) {
  TF_ASSIGN_OR_RETURN(const TfTensor* in,
                      ExpectMoveWithInts(l, Options::MirrorPadOptions, "MIRROR_PAD", false));
  const TfTensor& x = *in;
  const int8_t mode = l.op().options.mirror_mode;
  if (mode != 0 && mode != 1) {
    return l.Fail("mode: " + std::to_string(mode) + ", expected REFLECT (0) or SYMMETRIC (1)");
  }
  TF_ASSIGN_OR_RETURN(std::vector<int64_t> pads, Ints(l, 1, "paddings"));
  if (pads.size() != 2 * x.shape.size()) {
    return l.Fail("inputs[1]: paddings hold " + std::to_string(pads.size()) +
                  " values, expected 2 per dim of the input (" +
                  std::to_string(2 * x.shape.size()) + ")");
  }
  const int64_t edge = mode == 0 ? 1 : 0;  // REFLECT skips the edge element
  std::vector<int32_t> want;
  std::vector<std::pair<int64_t, std::vector<int32_t>>> steps;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    const int64_t n = x.shape[d], before = pads[2 * d], after = pads[2 * d + 1];
    if (before < 0 || after < 0 || before > n - edge || after > n - edge) {
      return l.Fail("inputs[1]: paddings of dim " + std::to_string(d) + " are " +
                    std::to_string(before) + ", " + std::to_string(after) + "; " +
                    (mode == 0 ? "REFLECT" : "SYMMETRIC") + " pads at most " +
                    std::to_string(n - edge) + " on each side of a dim of " + std::to_string(n));
    }
    want.push_back(static_cast<int32_t>(n + before + after));
    if (before == 0 && after == 0) continue;
    std::vector<int32_t> idx;
    for (int64_t i = -before; i < n + after; ++i) {
      const int64_t j = i < 0 ? -i - (1 - edge) : i >= n ? 2 * n - 1 - i - edge : i;
      idx.push_back(static_cast<int32_t>(j));
    }
    steps.emplace_back(static_cast<int64_t>(d), std::move(idx));
  }
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  return GatherSteps(l, steps, "mirror");
}

bool FoldsInts(const Lowering& l) {
  const TfTensor* y = l.op().outputs.empty() ? nullptr : l.Out(0);
  if (!y || !IsInt(*y) || l.op().outputs.size() != 1) return false;
  for (size_t i = 0; i < l.op().inputs.size(); ++i) {
    if (l.InIndex(i) >= 0 && !l.KnownInts(l.InIndex(i))) return false;
  }
  return true;
}

// The shape arithmetic Keras writes around a Dense on a 3-D input and a dynamic batch
// (SHAPE -> GATHER -> REDUCE_PROD -> PACK / CONCATENATION -> RESHAPE) and around
// UpSampling1D / Conv1DTranspose (SHAPE -> STRIDED_SLICE -> RESHAPE -> CONCATENATION):
// every input a constant or already folded, the result computed here (no op).
Status FoldIntOp(Lowering& l) {
  std::vector<std::vector<int64_t>> in;
  for (size_t i = 0; i < l.op().inputs.size(); ++i) {
    if (l.InIndex(i) < 0) continue;
    auto v = l.KnownInts(l.InIndex(i));
    if (!v || !IsInt(*l.In(i))) {
      return l.Fail("inputs[" + std::to_string(i) + "]: an INT32 " + l.op().name() +
                    " needs constant integers (or ones computed from SHAPE)");
    }
    in.push_back(std::move(*v));
  }
  const TfTensor& y = *l.Out(0);
  std::vector<int64_t> out;
  switch (l.op().code) {
    case op::kConcatenation:  // 1-D vectors (or scalars) joined
      if (y.shape.size() > 1) return l.Fail("outputs[0]: an INT32 CONCATENATION must be 1-D");
      for (const auto& v : in) out.insert(out.end(), v.begin(), v.end());
      break;
    case op::kGather:  // a 1-D vector indexed
      if (in.size() != 2 || l.In(0)->shape.size() != 1) {
        return l.Fail("inputs[0]: an INT32 GATHER must index a 1-D vector");
      }
      for (int64_t i : in[1]) {
        const int64_t n = static_cast<int64_t>(in[0].size());
        if (i < -n || i >= n) return l.Fail("inputs[1]: index " + std::to_string(i) + " out of range");
        out.push_back(in[0][static_cast<size_t>(i < 0 ? i + n : i)]);
      }
      break;
    case op::kReduceProd: {  // a 1-D vector's product
      if (in.size() != 2 || l.In(0)->shape.size() != 1) {
        return l.Fail("inputs[0]: an INT32 REDUCE_PROD must reduce a 1-D vector");
      }
      int64_t p = 1;
      for (int64_t v : in[0]) p *= v;
      out.push_back(p);
      break;
    }
    default:  // RESHAPE, SQUEEZE, EXPAND_DIMS: the same values
      out = in[0];
      break;
  }
  int64_t n = 1;
  for (int32_t d : y.shape) n *= d;
  if (static_cast<int64_t>(out.size()) != n) {
    return l.Fail("outputs[0]: " + std::to_string(out.size()) + " values for shape " +
                  ShapeText(y.shape));
  }
  l.SetKnownInts(l.op().outputs[0], std::move(out));
  return OkStatus();
}

Status LowerReduceProd(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::ReducerOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(2, 2, 1));
  if (!FoldsInts(l)) {
    return l.Fail("only the INT32 shape arithmetic of a dynamic batch is supported (constant "
                  "or SHAPE-computed integers; no int8 REDUCE_PROD kernel)")
        .WithKind(ErrorKind::kUnsupported);
  }
  return FoldIntOp(l);
}

Status LowerShape(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::ShapeOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(1, 1, 1));
  const TfTensor& y = *l.Out(0);
  if (!IsInt(y)) return l.Fail("outputs[0]: type " + TfTypeName(y.type) + ", expected INT32");
  const TfTensor& x = *l.In(0);
  l.SetKnownInts(l.op().outputs[0], Shape64(x.shape));  // batch 1: `shape` has it resolved
  return OkStatus();
}

}  // namespace tinyforge::import::tflite::internal
