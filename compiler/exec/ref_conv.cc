// conv2d and linear: direct loops with double accumulation. Double makes the result
// independent of summation order, so it sits within float rounding of any PyTorch backend.
#include "exec/ref_ops.h"

namespace tinyforge::exec {

void Conv2d(const ir::Conv2dAttrs& a, const HostTensor& x, const HostTensor& w, const HostTensor* b,
            HostTensor& y) {
  const auto& xs = x.shape();
  const auto& ws = w.shape();
  const auto& ys = y.shape();
  const int64_t n_batch = xs[0], in_c = xs[1], in_h = xs[2], in_w = xs[3];
  const int64_t out_c = ws[0], group_c = ws[1], k_h = ws[2], k_w = ws[3];
  const int64_t out_h = ys[2], out_w = ys[3];
  const int64_t out_per_group = out_c / a.groups;
  const auto xd = x.f32();
  const auto wd = w.f32();
  auto yd = y.f32();
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t oc = 0; oc < out_c; ++oc) {
      const int64_t first_ic = (oc / out_per_group) * group_c;
      const double bias = b ? static_cast<double>(b->f32()[static_cast<size_t>(oc)]) : 0.0;
      for (int64_t oh = 0; oh < out_h; ++oh) {
        for (int64_t ow = 0; ow < out_w; ++ow) {
          double acc = bias;
          for (int64_t c = 0; c < group_c; ++c) {
            const int64_t x_plane = (n * in_c + first_ic + c) * in_h;
            const int64_t w_plane = (oc * group_c + c) * k_h;
            for (int64_t kh = 0; kh < k_h; ++kh) {
              // Padding is zeros: out-of-range taps contribute nothing.
              const int64_t ih = oh * a.stride[0] - a.padding[0] + kh * a.dilation[0];
              if (ih < 0 || ih >= in_h) continue;
              for (int64_t kw = 0; kw < k_w; ++kw) {
                const int64_t iw = ow * a.stride[1] - a.padding[1] + kw * a.dilation[1];
                if (iw < 0 || iw >= in_w) continue;
                acc += static_cast<double>(xd[static_cast<size_t>((x_plane + ih) * in_w + iw)]) *
                       static_cast<double>(wd[static_cast<size_t>((w_plane + kh) * k_w + kw)]);
              }
            }
          }
          yd[static_cast<size_t>(((n * out_c + oc) * out_h + oh) * out_w + ow)] =
              static_cast<float>(acc);
        }
      }
    }
  }
}

void Linear(const HostTensor& x, const HostTensor& w, const HostTensor* b, HostTensor& y) {
  const int64_t out_f = w.shape()[0];
  const int64_t in_f = w.shape()[1];
  const int64_t rows = x.num_elements() / in_f;
  const auto xd = x.f32();
  const auto wd = w.f32();
  auto yd = y.f32();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < out_f; ++o) {
      double acc = b ? static_cast<double>(b->f32()[static_cast<size_t>(o)]) : 0.0;
      for (int64_t i = 0; i < in_f; ++i) {
        acc += static_cast<double>(xd[static_cast<size_t>(r * in_f + i)]) *
               static_cast<double>(wd[static_cast<size_t>(o * in_f + i)]);
      }
      yd[static_cast<size_t>(r * out_f + o)] = static_cast<float>(acc);
    }
  }
}

void Matmul(const HostTensor& a, const HostTensor& b, HostTensor& y) {
  const ir::Shape& as = a.shape();
  const ir::Shape& bs = b.shape();
  const ir::Shape& ys = y.shape();
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  const size_t batch_rank = ys.size() - 2;
  const int64_t batches = y.num_elements() / (m * n);
  // The matrix index of an operand for output batch `ob`: NumPy broadcasting of the
  // batch dims (an operand's missing leading dims and its 1-dims repeat).
  auto source = [&](const ir::Shape& s, int64_t ob) {
    const size_t rank = s.size() - 2;
    int64_t idx = 0, rest = ob;
    std::vector<int64_t> digits(batch_rank);
    for (size_t d = batch_rank; d-- > 0;) {
      digits[d] = rest % ys[d];
      rest /= ys[d];
    }
    for (size_t d = 0; d < rank; ++d) {
      const int64_t dim = s[d];
      idx = idx * dim + (dim == 1 ? 0 : digits[batch_rank - rank + d]);
    }
    return idx;
  };
  const auto ad = a.f32();
  const auto bd = b.f32();
  auto yd = y.f32();
  for (int64_t ob = 0; ob < batches; ++ob) {
    const size_t a0 = static_cast<size_t>(source(as, ob) * m * k);
    const size_t b0 = static_cast<size_t>(source(bs, ob) * k * n);
    const size_t y0 = static_cast<size_t>(ob * m * n);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0.0;
        for (int64_t d = 0; d < k; ++d) {
          acc += static_cast<double>(ad[a0 + static_cast<size_t>(i * k + d)]) *
                 static_cast<double>(bd[b0 + static_cast<size_t>(d * n + j)]);
        }
        yd[y0 + static_cast<size_t>(i * n + j)] = static_cast<float>(acc);
      }
    }
  }
}

}  // namespace tinyforge::exec
