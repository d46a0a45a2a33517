// SOFTMAX, LOGISTIC and TANH parameter builders.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include "quant/kernel_params.h"
#include "quant/params_check.h"
#include "support/text.h"

namespace tinyforge::quant {
namespace {

using detail::CheckPositive;
using detail::CheckQuant;

// Q4.27 input scaling of LOGISTIC/TANH, exactly as TFLM's Prepare: frexp of
// in_scale * 2^27 and a Q31 mantissa rounded WITHOUT QuantizeMultiplier's 2^31 fix-up
// (a mantissa rounding to 2^31 wraps to INT32_MIN in TFLM's static_cast on every
// compiler we know of; we reproduce that wrap).
struct Q4Input {
  int32_t multiplier;
  int32_t left_shift;
  int32_t radius;
};

Q4Input LogisticTanhInput(float input_scale) {
  constexpr int kInputIntegerBits = 4;
  const double real =
      static_cast<double>(input_scale) * static_cast<double>(1 << (31 - kInputIntegerBits));
  int left_shift = 0;
  const double q = std::frexp(real, &left_shift);
  const auto q_fixed =
      static_cast<int64_t>(RoundHalfAway(q * static_cast<double>(int64_t{1} << 31)));
  Q4Input r;
  r.multiplier = static_cast<int32_t>(static_cast<uint32_t>(q_fixed));
  r.left_shift = left_shift;
  r.radius = CalculateInputRadius(kInputIntegerBits, left_shift, 31);
  return r;
}

}  // namespace

Expected<s8_softmax_params> MakeSoftmaxParams(std::span<const int32_t> dims, float beta,
                                              TensorQuant input, TensorQuant output) {
  constexpr const char* kOp = "softmax";
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  if (output.scale != 1.0f / 256 || output.zero_point != -128) {
    return Error{"softmax: int8 output must have scale 1/256 and zero point -128"};
  }
  if (dims.empty()) return Error{"softmax: input must have at least one dimension"};
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    TF_QUANT_TRY_CHECK(CheckPositive(kOp, "dims", dims[i]));
    rows *= dims[i];
  }
  TF_QUANT_TRY_CHECK(CheckPositive(kOp, "depth", dims.back()));
  if (rows * dims.back() > INT32_MAX) return Error{"softmax: tensor too large"};
  if (!(beta > 0.0f)) return Error{"softmax: beta must be > 0"};

  // PreprocessSoftmaxScaling(beta, input_scale, kScaledDiffIntegerBits = 5), double rounding
  // build: cap at 2^31 - 1.
  constexpr int kScaledDiffIntegerBits = 5;
  const double max_real_multiplier = static_cast<double>((int64_t{1} << 31) - 1);
  const double real =
      std::min<double>(static_cast<double>(beta) * static_cast<double>(input.scale) *
                           static_cast<double>(1 << (31 - kScaledDiffIntegerBits)),
                       max_real_multiplier);
  auto m = QuantizeMultiplierGreaterThanOne(real);
  // TFLite's and TFLite Micro's Prepare stop the program here (TFLITE_CHECK_GT); in practice
  // an untrained model's vanishing logits (input scale below 2^-26 / beta).
  if (!m) {
    return Error{"softmax: beta * input scale too small (input scale " +
                 FormatFloat(input.scale) + "; TFLite's kernels abort on it too): " +
                 m.error().message()};
  }

  s8_softmax_params p{};
  p.rows = static_cast<int32_t>(rows);
  p.depth = dims.back();
  p.input_multiplier = m->multiplier;
  p.input_left_shift = m->shift;
  p.diff_min = -CalculateInputRadius(kScaledDiffIntegerBits, m->shift);
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_softmax_check(p)));
  return p;
}

Expected<s8_logistic_params> MakeLogisticParams(int32_t size, TensorQuant input,
                                                TensorQuant output) {
  constexpr const char* kOp = "logistic";
  TF_QUANT_TRY_CHECK(detail::CheckNonNegative(kOp, "size", size));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  if (output.scale != 1.0f / 256 || output.zero_point != -128) {
    return Error{"logistic: int8 output must have scale 1/256 and zero point -128"};
  }
  const Q4Input q = LogisticTanhInput(input.scale);
  s8_logistic_params p{};
  p.size = size;
  p.input_zero_point = input.zero_point;
  p.input_range_radius = q.radius;
  p.input_multiplier = q.multiplier;
  p.input_left_shift = q.left_shift;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_logistic_check(p)));
  return p;
}

Expected<s8_tanh_params> MakeTanhParams(int32_t size, TensorQuant input, TensorQuant output) {
  constexpr const char* kOp = "tanh";
  TF_QUANT_TRY_CHECK(detail::CheckNonNegative(kOp, "size", size));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  if (output.scale != 1.0f / 128 || output.zero_point != 0) {
    return Error{"tanh: int8 output must have scale 1/128 and zero point 0"};
  }
  const Q4Input q = LogisticTanhInput(input.scale);
  s8_tanh_params p{};
  p.size = size;
  p.input_zero_point = input.zero_point;
  p.input_range_radius = q.radius;
  p.input_multiplier = q.multiplier;
  p.input_left_shift = q.left_shift;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_tanh_check(p)));
  return p;
}

}  // namespace tinyforge::quant
