// Consistency checks of the op validators (runtime/ops/op_util.h): an op's parameters
// against its tensors' quantization and its window geometry (docs/program-format.md,
// "Consistency checks"). Out of line: every validator calls them, once, at init.
#include "runtime/ops/op_util.h"
#include "tinyforge/clamp.h"
#include "tinyforge/window.h"

namespace tinyforge::rt::ops {

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

bool WindowFits(const OpContext& op, int32_t in, int32_t out, int32_t k, int32_t stride,
                int32_t dilation, int32_t before, bool* unpadded, bool padding_windows) {
  const int64_t extent = (int64_t{k} - 1) * dilation + 1;
  const int64_t need = (int64_t{out} - 1) * stride + extent - in - before;  // after's least
  if (before < 0 || need + stride - 1 < 0) return false;
  const bool pads = (op.flags() & fmt::kOpFlagPads) != 0;
  if ((!pads || !padding_windows) && (before >= extent || need >= extent)) return false;
  if (!pads && !TflitePadding(in, out, k, stride, dilation, before)) return false;
  *unpadded = *unpadded && before == 0 && need <= 0;
  return true;
}

Status ExpectPartial(const OpContext& op, bool leaves_input_unread) {
  return ((op.flags() & fmt::kOpFlagPartial) != 0) == leaves_input_unread ? Status::kOk
                                                                         : Status::kBadParams;
}

}  // namespace tinyforge::rt::ops
