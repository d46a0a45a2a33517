// LAYER_NORM / RMS_NORM parameter builders (kernels/layernorm; docs/numerics.md "Layer norm").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include "kernels/layernorm/layernorm_row.h"
#include "quant/kernel_params.h"
#include "quant/params_check.h"

namespace tinyforge::quant {

using detail::CheckPositive;
using detail::CheckQuant;

Expected<LayerNormConstants> MakeLayerNormConstants(std::span<const float> weight,
                                                    std::span<const float> bias, int64_t depth,
                                                    TensorQuant output) {
  constexpr const char* kOp = "layer_norm";
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  TF_QUANT_TRY_CHECK(CheckPositive(kOp, "depth", depth));
  const auto n = static_cast<size_t>(depth);
  if ((!weight.empty() && weight.size() != n) || (!bias.empty() && bias.size() != n)) {
    return Error{"layer_norm: weight and bias must have one value per element of the last dim"};
  }
  auto w = [&](size_t c) { return weight.empty() ? 1.0 : static_cast<double>(weight[c]); };
  auto b = [&](size_t c) { return bias.empty() ? 0.0 : static_cast<double>(bias[c]); };
  // One entry each when every channel has the same weight and bias (no affine).
  bool uniform = true;
  for (size_t c = 1; c < n && uniform; ++c) uniform = w(c) == w(0) && b(c) == b(0);
  const size_t channels = uniform ? 1 : n;
  const double out_scale = static_cast<double>(output.scale);
  double amax = 0.0;
  for (size_t c = 0; c < channels; ++c) {
    if (!std::isfinite(w(c)) || !std::isfinite(b(c))) {
      return Error{"layer_norm: weight and bias must be finite"};
    }
    amax = std::max(amax, std::fabs(w(c) / out_scale));
  }
  int exp = 0;
  if (amax > 0.0) std::frexp(amax, &exp);  // amax = m * 2^exp, m in [0.5, 1)
  if (exp > 32) {
    return Error{"layer_norm: |weight| / output scale must be < 2^32 (widen the output range)"};
  }
  LayerNormConstants k;
  k.scale_exp = std::max(exp, -32);
  constexpr double kFrac = double{1 << tinyforge::layernorm::kFracBits};
  for (size_t c = 0; c < channels; ++c) {
    const double s = std::round(w(c) / out_scale * std::ldexp(1.0, 31 - k.scale_exp));
    k.scale.push_back(static_cast<int32_t>(std::clamp(s, -2147483647.0, 2147483647.0)));
    const double o = std::round((b(c) / out_scale + output.zero_point) * kFrac);
    if (std::fabs(o) >= std::ldexp(1.0, 30)) {
      return Error{"layer_norm: |bias| / output scale must be < 2^14 (widen the output range)"};
    }
    k.bias.push_back(static_cast<int32_t>(o));
  }
  return k;
}

Expected<s8_layernorm_params> MakeLayerNormParams(std::span<const int32_t> dims, bool rms,
                                                  double eps, TensorQuant input,
                                                  int32_t scale_exp, int64_t channels) {
  constexpr const char* kOp = "layer_norm";
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  if (dims.empty()) return Error{"layer_norm: input must have at least one dimension"};
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    TF_QUANT_TRY_CHECK(CheckPositive(kOp, "dims", dims[i]));
    rows *= dims[i];
  }
  const int64_t depth = dims.back();
  TF_QUANT_TRY_CHECK(CheckPositive(kOp, "depth", depth));
  if (depth > TF_LIMIT_LAYERNORM_DEPTH) {
    return Error{"layer_norm: the last dim must be <= " +
                 std::to_string(TF_LIMIT_LAYERNORM_DEPTH) + ", got " + std::to_string(depth)};
  }
  if (rows * depth > INT32_MAX) return Error{"layer_norm: tensor too large"};
  if (channels != 1 && channels != depth) {
    return Error{"layer_norm: scale and bias must have 1 or depth entries"};
  }
  if (!(eps >= 0.0) || !std::isfinite(eps)) return Error{"layer_norm: eps must be >= 0"};
  const double in_scale = static_cast<double>(input.scale);
  const double eps16 = std::round(eps / (in_scale * in_scale) * static_cast<double>(depth) *
                                  static_cast<double>(depth) * 65536.0);
  if (!(eps16 < std::ldexp(1.0, 62))) {
    return Error{"layer_norm: eps / input scale^2 too large for the last dim (widen the input "
                 "range or lower eps)"};
  }
  const auto e = static_cast<uint64_t>(eps16);
  s8_layernorm_params p{};
  p.rows = static_cast<int32_t>(rows);
  p.depth = static_cast<int32_t>(depth);
  p.rms = rms ? 1 : 0;
  p.input_zero_point = input.zero_point;
  p.eps_lo = static_cast<int32_t>(static_cast<uint32_t>(e & 0xFFFFFFFFu));
  p.eps_hi = static_cast<int32_t>(static_cast<uint32_t>(e >> 32));
  p.scale_exp = scale_exp;
  p.per_channel = channels == 1 ? 0 : 1;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_layernorm_check(p)));
  return p;
}

}  // namespace tinyforge::quant
