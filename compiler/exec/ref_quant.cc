// quantize / dequantize exactly as torch.ops.quantized_decomposed does it, because the
// compiler's job is to reproduce PT2E's QDQ graph bit for bit before lowering it.
#include <algorithm>
#include <cmath>

#include "exec/ref_ops.h"

namespace tinyforge::exec {
namespace {

// Channel of flat element i for per-channel parameters along `axis` of `shape`.
struct ChannelOf {
  int64_t inner = 1, channels = 1;
  ChannelOf(const ir::QuantParams& q, const ir::Shape& shape) {
    if (!q.axis) return;
    channels = shape[static_cast<size_t>(*q.axis)];
    for (size_t d = static_cast<size_t>(*q.axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  }
  size_t operator()(int64_t i) const { return static_cast<size_t>((i / inner) % channels); }
};

}  // namespace

int64_t QuantizeValue(float x, double scale, int64_t zero_point, int64_t qmin, int64_t qmax) {
  // `input * inv_scale` multiplies a float32 tensor by a Python float: the scalar becomes
  // float32 first. torch.round is half-to-even, like nearbyint in the default FP mode.
  const float inv_scale = static_cast<float>(1.0 / scale);
  const float rounded = std::nearbyint(x * inv_scale);
  const float shifted = rounded + static_cast<float>(zero_point);
  if (std::isnan(shifted)) return std::clamp<int64_t>(0, qmin, qmax);
  // Clamping in double is exact for every int32 bound (float32 would round 2^31-1 up).
  const double clamped = std::clamp(static_cast<double>(shifted), static_cast<double>(qmin),
                                    static_cast<double>(qmax));
  return static_cast<int64_t>(clamped);
}

float DequantizeValue(int64_t q, double scale, int64_t zero_point) {
  return (static_cast<float>(q) - static_cast<float>(zero_point)) * static_cast<float>(scale);
}

void Quantize(const ir::QuantParams& q, const HostTensor& x, HostTensor& y) {
  const ChannelOf channel(q, y.shape());
  const auto xd = x.f32();
  auto store8 = y.i8();
  auto store32 = y.i32();
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const size_t c = channel(i);
    const int64_t v =
        QuantizeValue(xd[static_cast<size_t>(i)], q.scale[c], q.zero_point[c], q.qmin, q.qmax);
    if (y.dtype() == ir::DType::kInt8) {
      store8[static_cast<size_t>(i)] = static_cast<int8_t>(v);
    } else {
      store32[static_cast<size_t>(i)] = static_cast<int32_t>(v);
    }
  }
}

void Dequantize(const ir::QuantParams& q, const HostTensor& x, HostTensor& y) {
  const ChannelOf channel(q, x.shape());
  auto yd = y.f32();
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const size_t c = channel(i);
    const int64_t v = x.dtype() == ir::DType::kInt8 ? x.i8()[static_cast<size_t>(i)]
                                                    : x.i32()[static_cast<size_t>(i)];
    // dequantize_per_channel subtracts the int64 zero-point tensor before converting
    // (exact integer subtraction); dequantize_per_tensor converts first. They differ only
    // for int32 values beyond 2^24 with a non-zero zero point, but they do differ.
    yd[static_cast<size_t>(i)] =
        q.axis ? static_cast<float>(v - q.zero_point[c]) * static_cast<float>(q.scale[c])
               : DequantizeValue(v, q.scale[c], q.zero_point[c]);
  }
}

}  // namespace tinyforge::exec
