// Table lookups (kernels/lut): the 256-entry tables of the int8 activations that TFLite
// computes with an integer algorithm or a float lookup table, each entry computed exactly as
// TFLite Micro's reference kernel computes that input (written from the documented
// algorithms; docs/numerics.md "Table lookups").
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/common/fixed_point.h"
#include "kernels/f32/f32.h"
#include "kernels/f32/f32_limits.h"
#include "kernels/logistic/logistic.h"
#include "kernels/quantize/quantize.h"
#include "kernels/tanh/tanh.h"
#include "quant/kernel_params.h"
#include "quant/params_check.h"
#include "support/text.h"

namespace tinyforge::quant {
namespace {

namespace fx = tinyforge::fx;

// All 256 int8 inputs in table order (entry i holds the input (int8_t)i).
std::array<int8_t, TF_LUT_ENTRIES> TableInputs() {
  std::array<int8_t, TF_LUT_ENTRIES> in{};
  for (int i = 0; i < TF_LUT_ENTRIES; ++i) in[static_cast<size_t>(i)] = static_cast<int8_t>(i);
  return in;
}

int8_t ClampInt8(int64_t v) {
  return static_cast<int8_t>(std::clamp<int64_t>(v, -128, 127));
}

// ---- HARD_SWISH: TFLM's int16 fixed-point arithmetic (reference_ops::HardSwish) ----------

int16_t SaturatingLeftShift16(int16_t v, int amount) {
  const int64_t r = static_cast<int64_t>(v) * (int64_t{1} << amount);
  return static_cast<int16_t>(std::clamp<int64_t>(r, INT16_MIN, INT16_MAX));
}

// gemmlowp::SaturatingRoundingDoublingHighMul for int16.
int16_t Srdhm16(int16_t a, int16_t b) {
  if (a == b && a == INT16_MIN) return INT16_MAX;
  const int32_t ab = int32_t{a} * int32_t{b};
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));  // truncating division
}

// Like Srdhm16, rounding toward zero (TFLite's SaturatingDoublingHighMul).
int16_t Sdhm16(int16_t a, int16_t b) {
  if (a == b && a == INT16_MIN) return INT16_MAX;
  return static_cast<int16_t>((int32_t{a} * int32_t{b}) / (1 << 15));
}

// gemmlowp::RoundingDivideByPOT for int16, exponent in [0, 31]. Its mask is 2^exponent - 1
// truncated to int16: all ones from exponent 16 on, so there the result is 1 for x >= 0 and
// -1 below (x >> exponent is 0 or -1, the "remainder" x itself). TFLite's reference HardSwish
// computes exactly that when the scales are that far apart (a network whose activations
// collapsed: Keras' MobileNetV3Small with its initial weights, docs/decisions.md 79).
int16_t Rdbp16(int16_t x, int exponent) {
  const auto mask = static_cast<int16_t>((int64_t{1} << exponent) - 1);
  const auto remainder = static_cast<int16_t>(x & mask);
  const auto threshold = static_cast<int16_t>((mask >> 1) + (x < 0 ? 1 : 0));
  return static_cast<int16_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

// tflite::DownScaleInt32ToInt16Multiplier.
int16_t DownScale16(int32_t m) {
  constexpr int32_t kRound = 1 << 15;
  if (m >= std::numeric_limits<int32_t>::max() - kRound) return INT16_MAX;
  return static_cast<int16_t>((m + kRound) >> 16);
}

}  // namespace

Expected<s8_lut_params> MakeLutParams(int32_t size) {
  s8_lut_params p{};
  p.size = size;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams("lut", s8_lut_check(p)));
  return p;
}

Expected<LutTable> LogisticTable(TensorQuant input, TensorQuant output) {
  TF_ASSIGN_OR_RETURN(s8_logistic_params p,
                      MakeLogisticParams(TF_LUT_ENTRIES, input, output));
  const auto in = TableInputs();
  LutTable t{};
  s8_logistic__ref(&p, in.data(), t.data());
  return t;
}

Expected<LutTable> TanhTable(TensorQuant input, TensorQuant output) {
  TF_ASSIGN_OR_RETURN(s8_tanh_params p, MakeTanhParams(TF_LUT_ENTRIES, input, output));
  const auto in = TableInputs();
  LutTable t{};
  s8_tanh__ref(&p, in.data(), t.data());
  return t;
}

Expected<LutTable> HardSwishTable(TensorQuant input, TensorQuant output) {
  constexpr const char* kOp = "hard_swish";
  TF_QUANT_TRY_CHECK(detail::CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(detail::CheckQuant(kOp, "output", output));
  // HardSwishPrepare: float scales, the ratios rounded to float, then QuantizeMultiplier.
  const float hires_input_scale = (1.0f / 128.0f) * input.scale;
  const float reluish_scale = 3.0f / 32768.0f;
  const QuantizedMultiplier out_m =
      QuantizeMultiplier(static_cast<double>(hires_input_scale / output.scale));
  const QuantizedMultiplier relu_m =
      QuantizeMultiplier(static_cast<double>(hires_input_scale / reluish_scale));
  if (out_m.shift > 0) {
    return Error{"hard_swish: input scale / output scale must be below 128 (TFLite's "
                 "output multiplier exponent <= 0)"};
  }
  if (out_m.shift < -31 || relu_m.shift < -31 || relu_m.shift > 16) {
    return Error{"hard_swish: input / output scale ratio out of the int16 arithmetic's range "
                 "(input scale " + FormatFloat(input.scale) + ", output scale " +
                 FormatFloat(output.scale) + ")"};
  }
  const int16_t out_m16 = DownScale16(out_m.multiplier);
  const int16_t relu_m16 = DownScale16(relu_m.multiplier);
  LutTable t{};
  for (int i = 0; i < TF_LUT_ENTRIES; ++i) {
    const int32_t x = static_cast<int8_t>(i);
    const auto hires = static_cast<int16_t>((x - input.zero_point) * (1 << 7));
    const int16_t preshift_out = Srdhm16(hires, out_m16);
    int16_t reluish = hires;
    if (relu_m.shift > 0) reluish = SaturatingLeftShift16(reluish, relu_m.shift - 1);
    reluish = Srdhm16(reluish, relu_m16);
    if (relu_m.shift > 0) reluish = SaturatingLeftShift16(reluish, 1);
    if (relu_m.shift < 0) reluish = Rdbp16(reluish, -relu_m.shift);
    reluish = static_cast<int16_t>((int32_t{reluish} + (1 << 15)) >> 1);
    const int16_t preshift = Sdhm16(reluish, preshift_out);
    const int32_t y = int32_t{Rdbp16(preshift, -out_m.shift)} + output.zero_point;
    t[static_cast<size_t>(i)] = ClampInt8(y);
  }
  return t;
}

Expected<LutTable> LeakyReluTable(TensorQuant input, TensorQuant output, float alpha) {
  constexpr const char* kOp = "leaky_relu";
  TF_QUANT_TRY_CHECK(detail::CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(detail::CheckQuant(kOp, "output", output));
  if (!std::isfinite(alpha)) return Error{"leaky_relu: alpha must be finite"};
  // LeakyReluPrepare: the products and quotients in float, then QuantizeMultiplier.
  const QuantizedMultiplier m_alpha =
      QuantizeMultiplier(static_cast<double>(input.scale * alpha / output.scale));
  const QuantizedMultiplier m_id =
      QuantizeMultiplier(static_cast<double>(input.scale / output.scale));
  if (m_alpha.shift > 30 || m_id.shift > 30) {
    return Error{"leaky_relu: input scale / output scale too large"};
  }
  LutTable t{};
  for (int i = 0; i < TF_LUT_ENTRIES; ++i) {
    const int32_t d = int32_t{static_cast<int8_t>(i)} - input.zero_point;
    const QuantizedMultiplier& m = d >= 0 ? m_id : m_alpha;
    const int32_t y = fx::MultiplyByQuantizedMultiplier(d, m.multiplier, m.shift);
    t[static_cast<size_t>(i)] = ClampInt8(int64_t{output.zero_point} + y);
  }
  return t;
}

// ---- RSQRT: TFLite's int8 Newton-Raphson inverse square root ------------------------------

// gemmlowp's SaturatingRoundingMultiplyByPOT for a positive exponent: a left shift that
// saturates to the int32 range.
int32_t SaturatingShiftLeft(int32_t x, int exponent) {
  const int64_t v = int64_t{x} * (int64_t{1} << exponent);
  return static_cast<int32_t>(
      std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
}

// tflite::GetInvSqrtQuantizedMultiplierExp with reverse_shift -1: 1 / sqrt(input) as a
// multiplier and a left shift, by five Newton steps in gemmlowp fixed point with 3 integer
// bits (a product of Qm and Qn values is SRDHM of the raws, in Q(m + n); Rescale to Q3 is
// a saturating left shift by the difference).
QuantizedMultiplier InvSqrtMultiplier(int32_t input) {
  if (input <= 1) return {std::numeric_limits<int32_t>::max(), 0};
  int shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++shift;
  }
  const int pairs = (std::countl_zero(static_cast<uint32_t>(input)) - 1) / 2 - 1;
  shift -= pairs;
  input <<= 2 * pairs;
  const int32_t half_input = fx::RoundingDivideByPOT(input >> 1, 1);  // Q3 raw of input / 2
  constexpr int32_t kHalfThree = (1 << 28) + (1 << 27);                // 1.5 in Q3
  int32_t x = 1 << 28;                                                  // 1.0 in Q3
  for (int i = 0; i < 5; ++i) {
    const int32_t x2 = fx::SaturatingRoundingDoublingHighMul(x, x);         // Q6
    const int32_t x3 = SaturatingShiftLeft(fx::SaturatingRoundingDoublingHighMul(x2, x), 6);
    const int32_t a = fx::SaturatingRoundingDoublingHighMul(kHalfThree, x);  // Q6
    const int32_t b = fx::SaturatingRoundingDoublingHighMul(half_input, x3);  // Q6
    x = SaturatingShiftLeft(static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b)), 3);
  }
  int32_t m = fx::SaturatingRoundingDoublingHighMul(x, 1518500250);  // * sqrt(2) / 2 (Q0)
  if (shift < 0) {
    m = static_cast<int32_t>(static_cast<uint32_t>(m) << -shift);
    shift = 0;
  }
  return {m, -shift};
}

Expected<LutTable> PreluTable(TensorQuant input, TensorQuant alpha, int32_t alpha_q,
                              TensorQuant output) {
  const int32_t one[1] = {1};
  TF_ASSIGN_OR_RETURN(s8_prelu_params p, MakePreluParams(one, one, input, alpha, output));
  const int32_t a = alpha_q - alpha.zero_point;
  LutTable t{};
  for (int i = 0; i < TF_LUT_ENTRIES; ++i) {
    const int32_t d = int32_t{static_cast<int8_t>(i)} - input.zero_point;
    const int32_t y =
        d >= 0 ? fx::MultiplyByQuantizedMultiplier(d, p.output_multiplier_1, p.output_shift_1)
               : fx::MultiplyByQuantizedMultiplier(d * a, p.output_multiplier_2,
                                                   p.output_shift_2);
    t[static_cast<size_t>(i)] = ClampInt8(int64_t{output.zero_point} + y);
  }
  return t;
}

Expected<LutTable> FloatLutTable(TensorQuant input, TensorQuant output, FloatLutFn fn) {
  constexpr const char* kNames[] = {"elu", "gelu", "gelu", "exp", "log"};
  const char* op = kNames[static_cast<int>(fn)];
  TF_QUANT_TRY_CHECK(detail::CheckQuant(op, "input", input));
  TF_QUANT_TRY_CHECK(detail::CheckQuant(op, "output", output));
  // LUTPopulate / PopulateLookupTable in float: dequantize, transform, round half away from
  // zero, add the zero point, clamp. A result that is not finite (log of 0 or below, exp
  // overflow) saturates: -inf and NaN to -128, +inf to 127.
  const float inverse_scale = 1.0f / output.scale;
  LutTable t{};
  for (int i = 0; i < TF_LUT_ENTRIES; ++i) {
    const int32_t q = static_cast<int8_t>(i);
    const float x = input.scale * static_cast<float>(q - input.zero_point);
    float y = 0.0f;
    switch (fn) {
      case FloatLutFn::kElu: y = x < 0.0f ? std::exp(x) - 1.0f : x; break;
      case FloatLutFn::kGelu:  // TFLite's gelu.cc: 0.5 x (1 + erf(x / sqrt 2))
        y = 0.5f * x * (1.0f + std::erf(x * static_cast<float>(M_SQRT1_2)));
        break;
      case FloatLutFn::kGeluTanh: {  // approximate: sqrt(2 / pi) (x + 0.044715 x^3)
        constexpr float kSqrt2dPi = static_cast<float>(M_2_SQRTPI * M_SQRT1_2);
        y = 0.5f * x * (1.0f + std::tanh(kSqrt2dPi * (x + 0.044715f * x * x * x)));
        break;
      }
      case FloatLutFn::kExp: y = std::exp(x); break;
      case FloatLutFn::kLog: y = std::log(x); break;
    }
    const float shifted = std::round(y * inverse_scale) + static_cast<float>(output.zero_point);
    const int64_t v = std::isnan(shifted) ? -128
                                          : static_cast<int64_t>(std::clamp(shifted, -1e9f, 1e9f));
    t[static_cast<size_t>(i)] = ClampInt8(v);
  }
  return t;
}

Expected<LutTable> RsqrtTable(TensorQuant input, TensorQuant output) {
  constexpr const char* kOp = "rsqrt";
  TF_QUANT_TRY_CHECK(detail::CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(detail::CheckQuant(kOp, "output", output));
  // SetRsqrtOutputMultiplier: 1 / (sqrt(in_scale) * out_scale) in double.
  const QuantizedMultiplier out = QuantizeMultiplier(
      1.0 / (std::sqrt(static_cast<double>(input.scale)) * static_cast<double>(output.scale)));
  constexpr int kShift = 20;  // RsqrtEvalQuantizedInt8's headroom
  if (out.shift - kShift < -31 || out.shift > 30) {
    return Error{"rsqrt: input and output scales give a multiplier out of range"};
  }
  LutTable t{};
  for (int i = 0; i < TF_LUT_ENTRIES; ++i) {
    const int32_t d = int32_t{static_cast<int8_t>(i)} - input.zero_point;
    int32_t y = 127;  // zero (and, for TFLite an error, below zero): the largest output
    if (d > 0) {
      const QuantizedMultiplier inv = InvSqrtMultiplier(d);
      const int32_t data = fx::MultiplyByQuantizedMultiplier(1, inv.multiplier, inv.shift + kShift);
      y = fx::MultiplyByQuantizedMultiplier(data, out.multiplier, out.shift - kShift) +
          output.zero_point;
    }
    t[static_cast<size_t>(i)] = ClampInt8(y);
  }
  return t;
}

Expected<LutTable> DequantQuantTable(TensorQuant input, TensorQuant output,
                                     std::span<const int32_t> fns) {
  constexpr const char* kOp = "quantize";
  TF_QUANT_TRY_CHECK(detail::CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(detail::CheckQuant(kOp, "output", output));
  int8_t in[TF_LUT_ENTRIES];
  float mid[TF_LUT_ENTRIES];
  for (int i = 0; i < TF_LUT_ENTRIES; ++i) in[i] = static_cast<int8_t>(i);
  const s8_dequantize_params dq{TF_LUT_ENTRIES, input.scale, input.zero_point};
  const s8_quantize_params q{TF_LUT_ENTRIES, output.scale, output.zero_point};
  LutTable t{};
  s8_dequantize__ref(&dq, in, mid);
  for (const int32_t fn : fns) {
    const f32_unary_params u{TF_LUT_ENTRIES, fn};
    if (const char* why = f32_unary_check(u)) return Error{std::string("unary: ") + why};
    f32_unary__ref(&u, mid, mid);
  }
  s8_quantize__ref(&q, mid, t.data());
  return t;
}

}  // namespace tinyforge::quant
