// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED parameter builders, plus TFLite padding.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "quant/kernel_params.h"
#include "quant/params_check.h"

namespace tinyforge::quant {
namespace {

using detail::CheckAllNonNegative;
using detail::CheckAllPositive;
using detail::CheckQuant;
using detail::CheckWeightScales;

// Output extent of a padded, strided, dilated window; <= 0 when the window never fits.
int64_t OutExtent(int64_t in, int64_t before, int64_t after, int64_t k, int64_t stride,
                  int64_t dilation) {
  const int64_t eff = (k - 1) * dilation + 1;
  const int64_t span = in + before + after - eff;
  return span < 0 ? 0 : span / stride + 1;
}

// in_scale * w_scale[c] / out_scale per channel, in double from the float scales, as
// TFLite's PopulateConvolutionQuantizationParams.
void PerChannelMultipliers(float in_scale, std::span<const float> w_scales, float out_scale,
                           int32_t channels, std::vector<int32_t>* multiplier,
                           std::vector<int32_t>* shift) {
  multiplier->resize(channels);
  shift->resize(channels);
  for (int32_t c = 0; c < channels; ++c) {
    const float w = w_scales.size() == 1 ? w_scales[0] : w_scales[c];
    const double real =
        static_cast<double>(in_scale) * static_cast<double>(w) / static_cast<double>(out_scale);
    const QuantizedMultiplier q = QuantizeMultiplier(real);
    (*multiplier)[c] = q.multiplier;
    (*shift)[c] = q.shift;
  }
}

std::optional<Error> CheckWindow(const char* op, int32_t stride_h, int32_t stride_w,
                                 int32_t dilation_h, int32_t dilation_w, const Padding2D& pad) {
  TF_QUANT_TRY_CHECK(CheckAllPositive(op, {{"stride_h", stride_h}, {"stride_w", stride_w},
                                           {"dilation_h", dilation_h},
                                           {"dilation_w", dilation_w}}));
  TF_QUANT_TRY_CHECK(CheckAllNonNegative(op, {{"padding.top", pad.top}, {"padding.left", pad.left},
                                              {"padding.bottom", pad.bottom},
                                              {"padding.right", pad.right}}));
  return std::nullopt;
}

}  // namespace

int32_t TfliteOutputSize(PaddingType type, int32_t in, int32_t k, int32_t stride,
                         int32_t dilation) {
  const int32_t eff = (k - 1) * dilation + 1;
  if (stride <= 0) return 0;
  return type == PaddingType::kSame ? (in + stride - 1) / stride : (in + stride - eff) / stride;
}

Padding2D TflitePadding(PaddingType type, int32_t in_h, int32_t in_w, int32_t k_h, int32_t k_w,
                        int32_t stride_h, int32_t stride_w, int32_t dilation_h,
                        int32_t dilation_w) {
  auto one = [type](int32_t in, int32_t k, int32_t stride, int32_t dilation, int32_t* before,
                    int32_t* after) {
    const int32_t out = TfliteOutputSize(type, in, k, stride, dilation);
    const int32_t eff = (k - 1) * dilation + 1;
    int32_t total = (out - 1) * stride + eff - in;
    if (total < 0) total = 0;
    *before = total / 2;
    *after = total - total / 2;
  };
  Padding2D p;
  one(in_h, k_h, stride_h, dilation_h, &p.top, &p.bottom);
  one(in_w, k_w, stride_w, dilation_w, &p.left, &p.right);
  return p;
}

s8_conv_params ConvKernelParams::Bind() const {
  s8_conv_params p = params;
  p.multiplier = multiplier.data();
  p.shift = shift.data();
  return p;
}

Expected<ConvKernelParams> MakeConvParams(const ConvSpec& s, TensorQuant input,
                                          std::span<const float> weight_scales,
                                          TensorQuant output) {
  constexpr const char* kOp = "conv";
  TF_QUANT_TRY_CHECK(CheckAllPositive(kOp, {{"batches", s.batches}, {"in_h", s.in_h},
                                            {"in_w", s.in_w}, {"in_c", s.in_c}, {"out_c", s.out_c},
                                            {"k_h", s.k_h}, {"k_w", s.k_w}, {"groups", s.groups}}));
  if (s.in_c % s.groups != 0 || s.out_c % s.groups != 0) {
    return Error{"conv: groups " + std::to_string(s.groups) + " must divide in_c " +
                 std::to_string(s.in_c) + " and out_c " + std::to_string(s.out_c)};
  }
  TF_QUANT_TRY_CHECK(
      CheckWindow(kOp, s.stride_h, s.stride_w, s.dilation_h, s.dilation_w, s.padding));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  TF_QUANT_TRY_CHECK(CheckWeightScales(kOp, weight_scales, s.out_c));
  const int64_t out_h =
      OutExtent(s.in_h, s.padding.top, s.padding.bottom, s.k_h, s.stride_h, s.dilation_h);
  const int64_t out_w =
      OutExtent(s.in_w, s.padding.left, s.padding.right, s.k_w, s.stride_w, s.dilation_w);
  TF_QUANT_TRY_CHECK(CheckAllPositive(kOp, {{"out_h (from padding)", out_h},
                                            {"out_w (from padding)", out_w}}));
  auto range = ActivationRangeInt8(s.activation, output.scale, output.zero_point);
  if (!range) return range.error().WithPrefix(kOp);

  ConvKernelParams r;
  s8_conv_params& p = r.params;
  p.batches = s.batches;
  p.in_h = s.in_h, p.in_w = s.in_w, p.in_c = s.in_c;
  p.out_h = static_cast<int32_t>(out_h), p.out_w = static_cast<int32_t>(out_w);
  p.out_c = s.out_c;
  p.k_h = s.k_h, p.k_w = s.k_w, p.filter_in_c = s.in_c / s.groups;
  p.stride_h = s.stride_h, p.stride_w = s.stride_w;
  p.dilation_h = s.dilation_h, p.dilation_w = s.dilation_w;
  p.pad_top = s.padding.top, p.pad_left = s.padding.left;
  p.input_offset = -input.zero_point;
  p.output_offset = output.zero_point;
  p.act_min = range->min, p.act_max = range->max;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_conv_check(p)));
  PerChannelMultipliers(input.scale, weight_scales, output.scale, s.out_c, &r.multiplier, &r.shift);
  return r;
}

s8_dwconv_params DwConvKernelParams::Bind() const {
  s8_dwconv_params p = params;
  p.multiplier = multiplier.data();
  p.shift = shift.data();
  return p;
}

Expected<DwConvKernelParams> MakeDwConvParams(const DwConvSpec& s, TensorQuant input,
                                              std::span<const float> weight_scales,
                                              TensorQuant output) {
  constexpr const char* kOp = "dwconv";
  TF_QUANT_TRY_CHECK(CheckAllPositive(kOp, {{"batches", s.batches}, {"in_h", s.in_h},
                                            {"in_w", s.in_w}, {"in_c", s.in_c},
                                            {"depth_multiplier", s.depth_multiplier},
                                            {"k_h", s.k_h}, {"k_w", s.k_w}}));
  TF_QUANT_TRY_CHECK(
      CheckWindow(kOp, s.stride_h, s.stride_w, s.dilation_h, s.dilation_w, s.padding));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  const int32_t out_c = s.in_c * s.depth_multiplier;
  TF_QUANT_TRY_CHECK(CheckWeightScales(kOp, weight_scales, out_c));
  const int64_t out_h =
      OutExtent(s.in_h, s.padding.top, s.padding.bottom, s.k_h, s.stride_h, s.dilation_h);
  const int64_t out_w =
      OutExtent(s.in_w, s.padding.left, s.padding.right, s.k_w, s.stride_w, s.dilation_w);
  TF_QUANT_TRY_CHECK(CheckAllPositive(kOp, {{"out_h (from padding)", out_h},
                                            {"out_w (from padding)", out_w}}));
  auto range = ActivationRangeInt8(s.activation, output.scale, output.zero_point);
  if (!range) return range.error().WithPrefix(kOp);

  DwConvKernelParams r;
  s8_dwconv_params& p = r.params;
  p.batches = s.batches;
  p.in_h = s.in_h, p.in_w = s.in_w, p.in_c = s.in_c;
  p.out_h = static_cast<int32_t>(out_h), p.out_w = static_cast<int32_t>(out_w);
  p.out_c = out_c;
  p.depth_multiplier = s.depth_multiplier;
  p.k_h = s.k_h, p.k_w = s.k_w;
  p.stride_h = s.stride_h, p.stride_w = s.stride_w;
  p.dilation_h = s.dilation_h, p.dilation_w = s.dilation_w;
  p.pad_top = s.padding.top, p.pad_left = s.padding.left;
  p.input_offset = -input.zero_point;
  p.output_offset = output.zero_point;
  p.act_min = range->min, p.act_max = range->max;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_dwconv_check(p)));
  PerChannelMultipliers(input.scale, weight_scales, output.scale, out_c, &r.multiplier, &r.shift);
  return r;
}

s8_fc_params FcKernelParams::Bind() const {
  s8_fc_params p = params;
  p.multiplier = multiplier.data();
  p.shift = shift.data();
  return p;
}

Expected<FcKernelParams> MakeFcParams(const FcSpec& s, TensorQuant input,
                                      std::span<const float> weight_scales, TensorQuant output) {
  constexpr const char* kOp = "fc";
  TF_QUANT_TRY_CHECK(CheckAllPositive(kOp, {{"batches", s.batches}, {"in_features", s.in_features},
                                            {"out_features", s.out_features}}));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  TF_QUANT_TRY_CHECK(CheckWeightScales(kOp, weight_scales, s.out_features));
  auto range = ActivationRangeInt8(s.activation, output.scale, output.zero_point);
  if (!range) return range.error().WithPrefix(kOp);

  FcKernelParams r;
  s8_fc_params& p = r.params;
  p.batches = s.batches;
  p.in_features = s.in_features;
  p.out_features = s.out_features;
  p.input_offset = -input.zero_point;
  p.output_offset = output.zero_point;
  p.act_min = range->min, p.act_max = range->max;
  // A single weight scale is per-tensor even when out_features == 1.
  const bool per_channel = weight_scales.size() > 1;
  p.per_channel = per_channel ? 1 : 0;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_fc_check(p)));
  if (per_channel) {
    PerChannelMultipliers(input.scale, weight_scales, output.scale, s.out_features, &r.multiplier,
                          &r.shift);
  } else {
    // GetQuantizedConvolutionMultipler: the float product, widened, then a double division.
    const float product = input.scale * weight_scales[0];
    const double real = static_cast<double>(product) / static_cast<double>(output.scale);
    const QuantizedMultiplier q = QuantizeMultiplier(real);
    r.multiplier = {q.multiplier};
    r.shift = {q.shift};
  }
  return r;
}

Expected<s8_bmm_params> MakeBmmParams(const BmmSpec& s, TensorQuant lhs, TensorQuant rhs,
                                      TensorQuant output) {
  constexpr const char* kOp = "bmm";
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "lhs", lhs));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "rhs", rhs));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  s8_bmm_params p{};
  p.batches = s.batches;
  p.lhs_batches = s.lhs_batches;
  p.rhs_batches = s.rhs_batches;
  p.rows = s.rows;
  p.depth = s.depth;
  p.cols = s.cols;
  p.lhs_transposed = s.lhs_transposed ? 1 : 0;
  p.rhs_transposed = s.rhs_transposed ? 1 : 0;
  p.lhs_offset = -lhs.zero_point;
  p.rhs_offset = -rhs.zero_point;
  p.output_offset = output.zero_point;
  const float product = lhs.scale * rhs.scale;
  const QuantizedMultiplier q =
      QuantizeMultiplier(static_cast<double>(product) / static_cast<double>(output.scale));
  p.multiplier = q.multiplier;
  p.shift = q.shift;
  p.act_min = -128;
  p.act_max = 127;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_bmm_check(p)));
  return p;
}

}  // namespace tinyforge::quant
