// Affine quantization parameters, as PyTorch's decomposed quantize/dequantize use them:
//   q = clamp(round_half_even(x * float32(1/scale)) + zero_point, qmin, qmax)
//   x = (float32(q) - zero_point) * float32(scale)
// Per-tensor: one scale/zero point and no axis. Per-channel: one per index of `axis`.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/dtype.h"
#include "support/expected.h"

namespace tinyforge::ir {

struct QuantParams {
  // Scales as doubles: the exact values PyTorch used (the file writes Python's repr).
  std::vector<double> scale;
  std::vector<int64_t> zero_point;  // same length as scale; each in [qmin, qmax]
  std::optional<int64_t> axis;      // set iff per-channel; in [0, rank)
  int64_t qmin = -128;              // integer range the quantizer used, inside the dtype's
  int64_t qmax = 127;

  bool per_channel() const { return axis.has_value(); }
  friend bool operator==(const QuantParams&, const QuantParams&) = default;
};

// Per-tensor parameters.
QuantParams PerTensorQuant(double scale, int64_t zero_point, int64_t qmin, int64_t qmax);

// Checks `q` for a tensor of `dtype` and `shape`: lengths equal, per-tensor means length 1
// and no axis, per-channel means axis in range and length == shape[axis]; every scale finite
// and > 0; qmin <= qmax inside the dtype's range; zero points in [qmin, qmax].
// Error text: "quant.FIELD: what", e.g. "quant.scale[3]: must be finite and > 0, got nan".
Status ValidateQuant(const QuantParams& q, DType dtype, const std::vector<int64_t>& shape);

}  // namespace tinyforge::ir
