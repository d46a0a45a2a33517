// The float elementwise functions of one input: one case each (see unary_fn.h).
#include "ir/unary_fn.h"

#include <algorithm>
#include <cmath>

namespace tinyforge::ir {
namespace {

constexpr double kSqrt1_2 = 0.70710678118654752440;   // 1 / sqrt(2)
constexpr double kSqrt2_Pi = 0.79788456080286535588;  // sqrt(2 / pi)

double Relu6(double v) { return std::clamp(v, 0.0, 6.0); }

}  // namespace

bool IsUnaryFn(OpType type) {
  switch (type) {
    case OpType::kSigmoid:
    case OpType::kTanh:
    case OpType::kHardswish:
    case OpType::kHardsigmoid:
    case OpType::kSilu:
    case OpType::kGelu:
    case OpType::kElu:
    case OpType::kLeakyRelu:
    case OpType::kMish:
    case OpType::kSoftplus:
    case OpType::kLogSigmoid:
    case OpType::kHardshrink:
    case OpType::kSoftshrink:
    case OpType::kThreshold:
    case OpType::kSquare:
      return true;
    default:
      return false;
  }
}

float EvalUnaryFn(OpType type, const Attrs& attrs, float x) {
  const double v = x;
  double y = 0.0;
  switch (type) {
    case OpType::kSigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case OpType::kTanh:
      return std::tanh(x);
    case OpType::kHardswish:
      y = v * Relu6(v + 3.0) / 6.0;
      break;
    case OpType::kHardsigmoid:
      y = Relu6(v + 3.0) / 6.0;
      break;
    case OpType::kSilu:
      y = v / (1.0 + std::exp(-v));
      break;
    case OpType::kGelu:
      y = std::get<GeluAttrs>(attrs).approximate_tanh
              ? 0.5 * v * (1.0 + std::tanh(kSqrt2_Pi * (v + 0.044715 * v * v * v)))
              : 0.5 * v * (1.0 + std::erf(v * kSqrt1_2));
      break;
    case OpType::kElu: {
      const auto& a = std::get<EluAttrs>(attrs);
      y = v > 0.0 ? v * a.scale : std::expm1(v * a.input_scale) * a.alpha * a.scale;
      break;
    }
    case OpType::kLeakyRelu: {
      // PyTorch converts the Scalar slope to float32 before multiplying.
      const float slope = static_cast<float>(std::get<LeakyReluAttrs>(attrs).negative_slope);
      return x > 0.0f ? x : x * slope;
    }
    case OpType::kMish:  // x * tanh(log1p(exp(x))), as PyTorch's kernel (no threshold)
      y = v * std::tanh(std::log1p(std::exp(v)));
      break;
    case OpType::kSoftplus: {
      const auto& a = std::get<SoftplusAttrs>(attrs);
      y = v * a.beta > a.threshold ? v : std::log1p(std::exp(v * a.beta)) / a.beta;
      break;
    }
    case OpType::kLogSigmoid:  // min(x, 0) - log1p(exp(-|x|)), PyTorch's stable form
      y = std::min(v, 0.0) - std::log1p(std::exp(-std::abs(v)));
      break;
    // The piecewise ones compare and subtract in float32, as PyTorch (its Scalar parameters
    // become float32 first).
    case OpType::kHardshrink: {
      const float l = static_cast<float>(std::get<ShrinkAttrs>(attrs).lambd);
      return x >= -l && x <= l ? 0.0f : x;
    }
    case OpType::kSoftshrink: {
      const float l = static_cast<float>(std::get<ShrinkAttrs>(attrs).lambd);
      return x > l ? x - l : x < -l ? x + l : 0.0f;
    }
    case OpType::kThreshold: {
      const auto& a = std::get<ThresholdAttrs>(attrs);
      return x <= static_cast<float>(a.threshold) ? static_cast<float>(a.value) : x;
    }
    case OpType::kSquare:
      return x * x;
    default:
      return x;
  }
  return static_cast<float>(y);
}

std::string CheckUnaryFnAttrs(OpType type, const Attrs& attrs) {
  if (type == OpType::kLeakyRelu) {
    if (!std::isfinite(std::get<LeakyReluAttrs>(attrs).negative_slope)) {
      return "negative_slope must be finite";
    }
  } else if (type == OpType::kElu) {
    const auto& a = std::get<EluAttrs>(attrs);
    if (!std::isfinite(a.alpha) || !std::isfinite(a.scale) || !std::isfinite(a.input_scale)) {
      return "alpha, scale and input_scale must be finite";
    }
  } else if (type == OpType::kSoftplus) {
    const auto& a = std::get<SoftplusAttrs>(attrs);
    if (!std::isfinite(a.beta) || a.beta == 0.0 || !std::isfinite(a.threshold)) {
      return "beta must be finite and nonzero, threshold finite";
    }
  } else if (type == OpType::kHardshrink || type == OpType::kSoftshrink) {
    const double l = std::get<ShrinkAttrs>(attrs).lambd;
    if (!std::isfinite(l) || l < 0.0) return "lambd must be finite and >= 0";
  } else if (type == OpType::kThreshold) {
    const auto& a = std::get<ThresholdAttrs>(attrs);
    if (!std::isfinite(a.threshold) || !std::isfinite(a.value)) {
      return "threshold and value must be finite";
    }
  }
  return {};
}

}  // namespace tinyforge::ir
