#include "ir/quant.h"

#include <cmath>
#include <string>

#include "support/text.h"

namespace tinyforge::ir {

QuantParams PerTensorQuant(double scale, int64_t zero_point, int64_t qmin, int64_t qmax) {
  return QuantParams{{scale}, {zero_point}, std::nullopt, qmin, qmax};
}

Status ValidateQuant(const QuantParams& q, DType dtype, const std::vector<int64_t>& shape) {
  if (!IsQuantized(dtype)) {
    return Error("quant: not allowed on " + std::string(DTypeName(dtype)) + " tensors");
  }
  if (q.qmin < DTypeMin(dtype) || q.qmax > DTypeMax(dtype) || q.qmin > q.qmax) {
    return Error("quant.qmin/qmax: [" + std::to_string(q.qmin) + ", " + std::to_string(q.qmax) +
                 "] is not a range inside " + std::string(DTypeName(dtype)) + "'s [" +
                 std::to_string(DTypeMin(dtype)) + ", " + std::to_string(DTypeMax(dtype)) + "]");
  }
  if (q.scale.empty()) return Error("quant.scale: empty");
  if (q.scale.size() != q.zero_point.size()) {
    return Error("quant.zero_point: " + std::to_string(q.zero_point.size()) + " values for " +
                 std::to_string(q.scale.size()) + " scales");
  }
  if (q.axis) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (*q.axis < 0 || *q.axis >= rank) {
      return Error("quant.axis: " + std::to_string(*q.axis) + " out of range for rank " +
                   std::to_string(rank));
    }
    const int64_t channels = shape[static_cast<size_t>(*q.axis)];
    if (static_cast<int64_t>(q.scale.size()) != channels) {
      return Error("quant.scale: " + std::to_string(q.scale.size()) +
                   " values for per-channel axis " + std::to_string(*q.axis) + " of size " +
                   std::to_string(channels));
    }
  } else if (q.scale.size() != 1) {
    return Error("quant.scale: " + std::to_string(q.scale.size()) +
                 " values but axis is null (per-tensor needs exactly 1)");
  }
  for (size_t i = 0; i < q.scale.size(); ++i) {
    if (!std::isfinite(q.scale[i]) || !(q.scale[i] > 0)) {
      return Error("quant.scale[" + std::to_string(i) + "]: must be finite and > 0, got " +
                   FormatDouble(q.scale[i]));
    }
    // The arithmetic runs in float32 (see quant.h): a scale that is 0 or inf there, or whose
    // reciprocal is, would quantize everything to one value.
    const float s32 = static_cast<float>(q.scale[i]);
    const float inv32 = static_cast<float>(1.0 / q.scale[i]);
    if (!(s32 > 0) || !std::isfinite(s32) || !std::isfinite(inv32)) {
      return Error("quant.scale[" + std::to_string(i) + "]: " + FormatDouble(q.scale[i]) +
                   " (or its reciprocal) is not a finite float32 > 0");
    }
    if (q.zero_point[i] < q.qmin || q.zero_point[i] > q.qmax) {
      return Error("quant.zero_point[" + std::to_string(i) +
                   "]: " + std::to_string(q.zero_point[i]) + " outside [qmin, qmax] = [" +
                   std::to_string(q.qmin) + ", " + std::to_string(q.qmax) + "]");
    }
  }
  return OkStatus();
}

}  // namespace tinyforge::ir
