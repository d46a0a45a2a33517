// Consistency checks of the op validators (runtime/ops/op_util.h): an op's parameters
// against its tensors' quantization and its window geometry (docs/program-format.md,
// "Consistency checks"). Out of line: every validator calls them, once, at init.
#include "runtime/ops/op_util.h"
#include "tinyforge/clamp.h"
#include "tinyforge/window.h"

namespace tinyforge::rt::ops {

int64_t Product2(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return -1;
  if (b != 0 && a > kMaxBytes / b) return -1;
  return a * b;
}

Status Expect(const OpContext& op, int32_t slot, uint8_t dtype, int64_t bytes, bool writable) {
  if (!op.has(slot)) return Status::kBadOp;
  const TensorRef t = op.tensor(slot);
  // A pipe window (tinyforge/pipe.h) holds some of the tensor's rows: the pipe's schedule,
  // checked at init (Model::CheckPipes), keeps within it.
  const bool size_ok = op.window(slot) ? t.size >= 1 && int64_t{t.size} <= bytes && t.in_arena()
                                       : int64_t{t.size} == bytes;
  if (bytes < 1 || t.dtype != dtype || !size_ok) return Status::kBadParams;
  if (writable && !t.in_arena()) return Status::kBadParams;
  return Status::kOk;
}

Status ExpectValues(const OpContext& op, int32_t slot, int32_t lo, int32_t hi) {
  const TensorRef t = op.tensor(slot);
  const int32_t* v = reinterpret_cast<const int32_t*>(t.data);
  for (uint32_t i = 0; i < t.size / 4; ++i) {
    if (v[i] < lo || v[i] > hi) return Status::kBadParams;
  }
  return Status::kOk;
}

Status ExpectLineBuffer(const OpContext& op, int32_t slot, int64_t row_bytes, const TensorRef& in,
                        const TensorRef& out) {
  if (op.pipe_out()) return op.has(slot) ? Status::kBadOp : Status::kOk;  // a window instead
  if (!op.has(slot)) return Status::kBadOp;
  const TensorRef ring = op.tensor(slot);
  if (ring.dtype != fmt::kInt8 || !ring.in_arena() || int64_t{ring.size} < row_bytes) {
    return Status::kBadParams;
  }
  TF_RT_TRY(Disjoint(ring, in));
  return Disjoint(ring, out);
}

Status ExpectZeroPoint(const OpContext& op, int32_t slot, int32_t zero_point) {
  return op.scale(slot) == 0.0f || op.zero_point(slot) == zero_point ? Status::kOk
                                                                      : Status::kBadParams;
}

Status ExpectInputOffset(const OpContext& op, int32_t slot, int32_t input_offset,
                         bool unpadded) {
  if ((op.flags() & fmt::kOpFlagZpFolded) != 0) {
    return unpadded && input_offset == 0 ? Status::kOk : Status::kBadParams;
  }
  return ExpectZeroPoint(op, slot, -input_offset);
}

Status ExpectClamp(const OpContext& op, int32_t out_slot, int32_t act_min, int32_t act_max) {
  const float scale = op.scale(out_slot);
  if ((op.flags() & fmt::kOpFlagClamp) != 0 || scale == 0.0f ||
      FusedActivationClamp(scale, op.zero_point(out_slot), act_min, act_max)) {
    return Status::kOk;
  }
  return Status::kBadParams;
}

namespace {

// One dim of CheckWindows (op_util.h).
bool WindowFits(const OpContext& op, const WindowDim& d, bool* unpadded, bool padding_windows) {
  const int64_t extent = (int64_t{d.k} - 1) * d.dilation + 1;
  const int64_t need = (int64_t{d.out} - 1) * d.stride + extent - d.in - d.before;  // after's least
  if (d.before < 0 || need + d.stride - 1 < 0) return false;
  const bool pads = (op.flags() & fmt::kOpFlagPads) != 0;
  if ((!pads || !padding_windows) && (d.before >= extent || need >= extent)) return false;
  if (!pads && !TflitePadding(d.in, d.out, d.k, d.stride, d.dilation, d.before)) return false;
  *unpadded = *unpadded && d.before == 0 && need <= 0;
  return true;
}

bool LeavesInputUnread(const WindowDim& d) {
  return WindowLeavesInputUnread(d.in, d.out, d.k, d.stride, d.dilation, d.before);
}

}  // namespace

Status CheckWindows(const OpContext& op, const WindowDim& h, const WindowDim& w,
                    bool padding_windows, bool* unpadded) {
  if (!WindowFits(op, h, unpadded, padding_windows) ||
      !WindowFits(op, w, unpadded, padding_windows)) {
    return Status::kBadParams;
  }
  const bool partial = (op.flags() & fmt::kOpFlagPartial) != 0;
  return partial == (LeavesInputUnread(h) || LeavesInputUnread(w)) ? Status::kOk
                                                                   : Status::kBadParams;
}

}  // namespace tinyforge::rt::ops
