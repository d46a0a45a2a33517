// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (IR resize, TFLite's integer algorithm in the
// kernels; a requantize follows when the output's parameters differ from the input's), and
// DEPTH_TO_SPACE / SPACE_TO_DEPTH as a reshape view, a transpose and a reshape view.
#include "import/tflite/tflite_lower_internal.h"

namespace tinyforge::import::tflite::internal {
Status LowerResize(Lowering& l) {
  const bool bilinear = l.op().code == op::kResizeBilinear;
  TF_RETURN_IF_ERROR(l.ExpectOptions(
      bilinear ? Options::ResizeBilinearOptions : Options::ResizeNearestNeighborOptions, true));
  TF_RETURN_IF_ERROR(l.ExpectCounts(2, 2, 1));
  const TfTensor& x = *l.In(0);
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectRank(&x, "inputs[0]", 4));
  TF_RETURN_IF_ERROR(l.ExpectAct(&y, "outputs[0]"));
  const TfTensor* size_t_ = l.In(1);
  auto size = size_t_ ? l.KnownInts(l.InIndex(1)) : std::nullopt;
  if (!size || size->size() != 2) {
    return l.Fail("inputs[1]: size must be a constant INT32 [2] (new height, width)");
  }
  for (int64_t d : *size) {
    if (d < 1 || d > (1 << 24)) {
      return l.Fail("inputs[1]: size " + std::to_string(d) + " not in [1, 16777216]");
    }
  }
  const TfOptions& o = l.op().options;
  if (o.align_corners && o.half_pixel_centers) {
    return l.Fail("align_corners and half_pixel_centers are both set (TFLite allows one)");
  }
  const std::vector<int32_t> want = {x.shape[0], static_cast<int32_t>((*size)[0]),
                                     static_cast<int32_t>((*size)[1]), x.shape[3]};
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  ir::ResizeAttrs a;
  a.size = {(*size)[0], (*size)[1]};
  a.bilinear = bilinear;
  a.align_corners = o.align_corners;
  a.half_pixel_centers = o.half_pixel_centers;
  a.layout = ir::Layout::kNHWC;
  const quant::TensorQuant qx = Q(x), qy = Q(y);
  if (qx.scale == qy.scale && qx.zero_point == qy.zero_point) {
    l.AddOp(ir::OpType::kResize, {l.Tensor(l.InIndex(0))}, {l.Tensor(l.op().outputs[0])}, a);
    return OkStatus();
  }
  // TFLite's kernels ignore the parameters (the converter makes them equal); a differing
  // output is honoured with TFLM's requantize after the resize.
  const ir::TensorId mid = l.AddActivation(y.name + ".resized", Shape64(want), x);
  l.AddOp(ir::OpType::kResize, {l.Tensor(l.InIndex(0))}, {mid}, a);
  int64_t n = 1;
  for (int32_t d : want) n *= d;
  auto p = quant::MakeRequantizeParams(static_cast<int32_t>(n), qx, qy);
  if (!p.ok()) return l.Fail(p.error().message());
  ir::ClampAttrs c;
  c.act_min = p->act_min;
  c.act_max = p->act_max;
  ir::Op& rq = l.AddOp(ir::OpType::kRequantize, {mid}, {l.Tensor(l.op().outputs[0])}, c,
                       ".requantize");
  l.AddRequantInputs(rq, {p->multiplier}, {p->shift});
  return OkStatus();
}

Status LowerDepthSpace(Lowering& l) {
  const bool to_space = l.op().code == op::kDepthToSpace;
  TF_RETURN_IF_ERROR(
      l.ExpectOptions(to_space ? Options::DepthToSpaceOptions : Options::SpaceToDepthOptions, false));
  TF_RETURN_IF_ERROR(l.ExpectCounts(1, 1, 1));
  const TfTensor& x = *l.In(0);
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectRank(&x, "inputs[0]", 4));
  TF_RETURN_IF_ERROR(l.ExpectAct(&y, "outputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectSameQuant(&y, "outputs[0]", &x, "inputs[0]",
                                       l.op().name() + " moves bytes and does not rescale"));
  const int64_t b = l.op().options.block_size;
  const int64_t n = x.shape[0], h = x.shape[1], w = x.shape[2], c = x.shape[3];
  if (b < 1 || b > 65536) return l.Fail("block_size " + std::to_string(b) + " not in [1, 65536]");
  std::vector<int64_t> split, moved;
  std::vector<int32_t> want;
  if (to_space) {  // [N,H,W,(bh,bw,C')] -> [N,H,bh,W,bw,C']
    if (c % (b * b) != 0) {
      return l.Fail("inputs[0]: depth " + std::to_string(c) + " is not a multiple of block_size^2");
    }
    split = {n, h, w, b, b, c / (b * b)};
    moved = {n, h, b, w, b, c / (b * b)};
    want = {x.shape[0], static_cast<int32_t>(h * b), static_cast<int32_t>(w * b),
            static_cast<int32_t>(c / (b * b))};
  } else {  // [N,(H',bh),(W',bw),C] -> [N,H',W',bh,bw,C]
    if (h % b != 0 || w % b != 0) {
      return l.Fail("inputs[0]: height and width must be multiples of block_size " +
                    std::to_string(b));
    }
    split = {n, h / b, b, w / b, b, c};
    moved = {n, h / b, w / b, b, b, c};
    want = {x.shape[0], static_cast<int32_t>(h / b), static_cast<int32_t>(w / b),
            static_cast<int32_t>(c * b * b)};
  }
  TF_RETURN_IF_ERROR(l.ExpectOutputShape(want));
  const ir::TensorId a = l.AddActivation(y.name + ".split", split, x);
  const ir::TensorId t = l.AddActivation(y.name + ".moved", moved, x);
  l.AddOp(ir::OpType::kReshape, {l.Tensor(l.InIndex(0))}, {a}, ir::ReshapeAttrs{split}, ".split");
  l.AddOp(ir::OpType::kTranspose, {a}, {t}, ir::TransposeAttrs{{0, 1, 3, 2, 4, 5}});
  l.AddOp(ir::OpType::kReshape, {t}, {l.Tensor(l.op().outputs[0])},
          ir::ReshapeAttrs{Shape64(want)}, ".merge");
  return OkStatus();
}

}  // namespace tinyforge::import::tflite::internal
