// RESIZE_NEAREST_NEIGHBOR / RESIZE_BILINEAR (and PyTorch's upsample_nearest2d /
// upsample_bilinear2d): the kernel parameters and the coordinate table, computed by the
// front end's own rule (TFLite's reference kernels; PyTorch's scale factor as `scale`).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/resize/resize_limits.h"
#include "quant/kernel_params.h"
#include "quant/params_check.h"

namespace tinyforge::quant {
namespace {

constexpr int32_t kOne = TF_RESIZE_ONE;

// The float32 source pixels per output pixel, as TFLite (and PyTorch) compute it.
float AxisScale(int32_t in, int32_t out, double scale, bool align_corners) {
  if (align_corners && out > 1) return static_cast<float>(in - 1) / static_cast<float>(out - 1);
  if (scale > 0.0) return static_cast<float>(scale);
  return static_cast<float>(in) / static_cast<float>(out);
}

// TFLite's GetNearestNeighbor (reference_ops) for output index i.
int32_t Nearest(int32_t i, int32_t in, int32_t out, double scale, bool align, bool half) {
  if (in == out && !align) return i;  // PyTorch's nearest_idx shortcut; TFLite agrees
  const float s = AxisScale(in, out, scale, align);
  const float v = (static_cast<float>(i) + (half ? 0.5f : 0.0f)) * s;
  int32_t r = align ? static_cast<int32_t>(std::round(v)) : static_cast<int32_t>(std::floor(v));
  r = std::min(r, in - 1);
  return std::max(r, 0);
}

// Appends (lo, hi, w) for every output index of one axis to `table`.
void AxisTable(int32_t in, int32_t out, double scale, const ResizeSpec& s,
               std::vector<int32_t>& table) {
  if (!s.bilinear) {
    for (int32_t i = 0; i < out; ++i) {
      const int32_t k = Nearest(i, in, out, scale, s.align_corners, s.half_pixel_centers);
      table.insert(table.end(), {k, k, 0});
    }
    return;
  }
  // TFLite's integer ResizeBilinear: the scale in 1/1024 units, rounded.
  int64_t scale_10 = (int64_t{kOne} * in + out / 2) / out;
  if (s.align_corners && out > 1) {
    scale_10 = (int64_t{kOne} * (in - 1) + (out - 1) / 2) / (out - 1);
  } else if (scale > 0.0) {
    scale_10 = static_cast<int64_t>(std::llround(scale * kOne));
  }
  for (int32_t i = 0; i < out; ++i) {
    const int64_t v = s.half_pixel_centers ? i * scale_10 + scale_10 / 2 - (1 << 9) : i * scale_10;
    int64_t lo = std::max<int64_t>(v / kOne, 0);  // C division, as TFLite's
    const int64_t hi = std::min<int64_t>((v + kOne - 1) / kOne, in - 1);
    int64_t w = v - kOne * lo;
    lo = std::min<int64_t>(lo, in - 1);
    if (lo == hi) w = 0;  // both taps read the same pixel: the same sum
    table.insert(table.end(), {static_cast<int32_t>(lo), static_cast<int32_t>(hi),
                               static_cast<int32_t>(w)});
  }
}

}  // namespace

Expected<ResizeKernelParams> MakeResizeParams(const ResizeSpec& spec, TensorQuant input,
                                              TensorQuant output) {
  constexpr const char* kOp = "resize";
  TF_QUANT_TRY_CHECK(detail::CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(detail::CheckQuant(kOp, "output", output));
  if (input.scale != output.scale || input.zero_point != output.zero_point) {
    return Error{"resize: input and output must share scale and zero point"};
  }
  if (spec.align_corners && spec.half_pixel_centers) {
    return Error{"resize: align_corners and half_pixel_centers are exclusive"};
  }
  ResizeKernelParams kp;
  s8_resize_params& p = kp.params;
  p.batches = spec.batches;
  p.input_h = spec.in_h;
  p.input_w = spec.in_w;
  p.channels = spec.channels;
  p.output_h = spec.out_h;
  p.output_w = spec.out_w;
  p.bilinear = spec.bilinear ? 1 : 0;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_resize_check(p)));
  kp.table.reserve(static_cast<size_t>(s8_resize_table_entries(p)));
  AxisTable(spec.in_h, spec.out_h, spec.scale_h, spec, kp.table);
  AxisTable(spec.in_w, spec.out_w, spec.scale_w, spec, kp.table);
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_resize_check_table(p, kp.table.data())));
  return kp;
}

std::vector<ResizeTap> ResizeFloatTaps(int32_t in, int32_t out, double scale, bool bilinear,
                                       bool align_corners, bool half_pixel_centers) {
  std::vector<ResizeTap> taps(static_cast<size_t>(out));
  const float s = AxisScale(in, out, scale, align_corners);
  for (int32_t i = 0; i < out; ++i) {
    ResizeTap& t = taps[static_cast<size_t>(i)];
    if (!bilinear) {
      t.lo = t.hi = Nearest(i, in, out, scale, align_corners, half_pixel_centers);
      continue;
    }
    // TFLite's float ComputeInterpolationValues.
    const float v = half_pixel_centers ? (static_cast<float>(i) + 0.5f) * s - 0.5f
                                       : static_cast<float>(i) * s;
    t.lo = std::min(std::max(static_cast<int32_t>(std::floor(v)), 0), in - 1);
    t.hi = std::min(static_cast<int32_t>(std::ceil(v)), in - 1);
    t.w = t.lo == t.hi ? 0.0f : v - static_cast<float>(t.lo);
  }
  return taps;
}

}  // namespace tinyforge::quant
