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
  }
  return {};
}

}  // namespace tinyforge::ir
