// Pools over the last two dims ([N,C,H,W] or [C,H,W]), following PyTorch's CPU kernels
// (aten/src/ATen/native/cpu/{MaxPoolKernel,AvgPoolKernel}.cpp) including their edge rules.
#include <cmath>
#include <limits>

#include "exec/ref_ops.h"

namespace tinyforge::exec {
namespace {

struct Plane {
  int64_t count, in_h, in_w, out_h, out_w;
};

Plane Planes(const HostTensor& x, const HostTensor& y) {
  const auto& xs = x.shape();
  const auto& ys = y.shape();
  const size_t r = xs.size();
  const int64_t in_h = xs[r - 2], in_w = xs[r - 1];
  return {x.num_elements() / (in_h * in_w), in_h, in_w, ys[r - 2], ys[r - 1]};
}

// Calls `window(input plane, oh, ow)` for every output element and stores what it returns.
template <typename Window>
void ForEachOutput(const HostTensor& x, HostTensor& y, Window window) {
  const Plane p = Planes(x, y);
  const auto xd = x.f32();
  auto yd = y.f32();
  for (int64_t c = 0; c < p.count; ++c) {
    const float* in = xd.data() + c * p.in_h * p.in_w;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        yd[static_cast<size_t>((c * p.out_h + oh) * p.out_w + ow)] = window(p, in, oh, ow);
      }
    }
  }
}

}  // namespace

void MaxPool2d(const ir::MaxPool2dAttrs& a, const HostTensor& x, HostTensor& y) {
  ForEachOutput(x, y, [&](const Plane& p, const float* in, int64_t oh, int64_t ow) {
    // Padding never wins: start at -inf and skip out-of-range taps. NaN wins, as in
    // PyTorch's `val > maxval || isnan(val)`.
    float best = -std::numeric_limits<float>::infinity();
    for (int64_t kh = 0; kh < a.kernel[0]; ++kh) {
      const int64_t ih = oh * a.stride[0] - a.padding[0] + kh * a.dilation[0];
      if (ih < 0 || ih >= p.in_h) continue;
      for (int64_t kw = 0; kw < a.kernel[1]; ++kw) {
        const int64_t iw = ow * a.stride[1] - a.padding[1] + kw * a.dilation[1];
        if (iw < 0 || iw >= p.in_w) continue;
        const float v = in[ih * p.in_w + iw];
        if (v > best || std::isnan(v)) best = v;
        if (std::isnan(best)) break;
      }
    }
    return best;
  });
}

void AvgPool2d(const ir::AvgPool2dAttrs& a, const HostTensor& x, HostTensor& y) {
  ForEachOutput(x, y, [&](const Plane& p, const float* in, int64_t oh, int64_t ow) {
    // The window clipped to the padded input gives the count_include_pad divisor (a
    // ceil_mode window hanging past the padding does not count its overhang); the
    // window clipped to the input gives the other divisor and the summed elements.
    int64_t h0 = oh * a.stride[0] - a.padding[0];
    int64_t w0 = ow * a.stride[1] - a.padding[1];
    int64_t h1 = std::min(h0 + a.kernel[0], p.in_h + a.padding[2]);
    int64_t w1 = std::min(w0 + a.kernel[1], p.in_w + a.padding[3]);
    const int64_t padded_size = (h1 - h0) * (w1 - w0);
    h0 = std::max<int64_t>(h0, 0);
    w0 = std::max<int64_t>(w0, 0);
    h1 = std::min(h1, p.in_h);
    w1 = std::min(w1, p.in_w);
    if (h0 >= h1 || w0 >= w1) return 0.0f;  // PyTorch: a window entirely in the padding
    float sum = 0.0f;  // PyTorch accumulates float in float (opmath_type<float>)
    for (int64_t ih = h0; ih < h1; ++ih) {
      for (int64_t iw = w0; iw < w1; ++iw) sum += in[ih * p.in_w + iw];
    }
    const int64_t divisor = a.divisor_override != 0 ? a.divisor_override
                            : a.count_include_pad   ? padded_size
                                                    : (h1 - h0) * (w1 - w0);
    return sum / static_cast<float>(divisor);
  });
}

}  // namespace tinyforge::exec
