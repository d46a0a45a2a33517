// Reductions: mean, sum and max over a set of dims, softmax along one axis; constant pad.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "exec/ref_ops.h"
#include "ir/shape_inference.h"

namespace tinyforge::exec {

namespace {

enum class ReduceKind { kMean, kSum, kMax };

void Reduce(ReduceKind kind, const ir::MeanAttrs& a, const HostTensor& x, HostTensor& y) {
  const ir::Shape& xs = x.shape();
  const int64_t rank = static_cast<int64_t>(xs.size());
  const std::vector<int64_t> dims = ir::NormalizeMeanDims(a, rank).value();
  std::vector<bool> reduced(xs.size(), false);
  int64_t count = 1;
  for (int64_t d : dims) {
    reduced[static_cast<size_t>(d)] = true;
    count *= xs[static_cast<size_t>(d)];
  }
  // Walk x in C order with a multi-index; the output index is the same multi-index with the
  // reduced dims dropped (keepdim's size-1 dims do not change the flat index).
  const bool max = kind == ReduceKind::kMax;
  std::vector<double> acc(static_cast<size_t>(y.num_elements()),
                          max ? -std::numeric_limits<double>::infinity() : 0.0);
  std::vector<int64_t> idx(xs.size(), 0);
  const auto xd = x.f32();
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    int64_t out = 0;
    for (size_t d = 0; d < xs.size(); ++d) {
      if (!reduced[d]) out = out * xs[d] + idx[d];
    }
    const double v = static_cast<double>(xd[static_cast<size_t>(i)]);
    double& r = acc[static_cast<size_t>(out)];
    r = max ? (v > r || std::isnan(v) ? v : r) : r + v;
    for (size_t d = xs.size(); d-- > 0;) {
      if (++idx[d] < xs[d]) break;
      idx[d] = 0;
    }
  }
  auto yd = y.f32();
  for (size_t i = 0; i < acc.size(); ++i) {
    yd[i] = static_cast<float>(kind == ReduceKind::kMean ? acc[i] / static_cast<double>(count)
                                                         : acc[i]);
  }
}

}  // namespace

void Mean(const ir::MeanAttrs& a, const HostTensor& x, HostTensor& y) {
  Reduce(ReduceKind::kMean, a, x, y);
}
void Sum(const ir::MeanAttrs& a, const HostTensor& x, HostTensor& y) {
  Reduce(ReduceKind::kSum, a, x, y);
}
void Amax(const ir::MeanAttrs& a, const HostTensor& x, HostTensor& y) {
  Reduce(ReduceKind::kMax, a, x, y);
}

void Pad(const ir::PadAttrs& a, const HostTensor& x, HostTensor& y) {
  const ir::Shape& xs = x.shape();
  const ir::Shape& ys = y.shape();
  auto yd = y.f32();
  std::fill(yd.begin(), yd.end(), static_cast<float>(a.value));
  const auto xd = x.f32();
  std::vector<int64_t> idx(xs.size(), 0);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    int64_t out = 0;
    for (size_t d = 0; d < xs.size(); ++d) out = out * ys[d] + idx[d] + a.padding[2 * d];
    yd[static_cast<size_t>(out)] = xd[static_cast<size_t>(i)];
    for (size_t d = xs.size(); d-- > 0;) {
      if (++idx[d] < xs[d]) break;
      idx[d] = 0;
    }
  }
}

namespace {

// Calls `line(len, at, line_index)` for every line of x along `axis` (negative counts from
// the end; a scalar is rank 1): at(k) is the flat index of the line's k-th element,
// line_index counts the lines in C order of the other dims.
template <typename Line>
void ForEachLine(const HostTensor& x, int64_t axis_attr, Line line) {
  const ir::Shape& xs = x.shape();
  const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(xs.size()));
  const int64_t axis = *ir::NormalizeAxis(axis_attr, rank);
  const int64_t len = xs.empty() ? 1 : xs[static_cast<size_t>(axis)];
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < xs.size(); ++d) inner *= xs[d];
  const int64_t outer = x.num_elements() / (len * inner);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t k) { return static_cast<size_t>((o * len + k) * inner + in); };
      line(len, at, static_cast<size_t>(o * inner + in));
    }
  }
}

}  // namespace

void ArgMax(const ir::ArgMaxAttrs& a, const HostTensor& x, HostTensor& y) {
  const auto xd = x.f32();
  auto yd = y.i32();
  ForEachLine(x, a.axis, [&](int64_t len, auto at, size_t line) {
    int64_t best = 0;
    for (int64_t k = 1; k < len && !std::isnan(xd[at(best)]); ++k) {
      const float v = xd[at(k)], b = xd[at(best)];
      if (std::isnan(v) || (a.min ? v < b : v > b)) best = k;
    }
    yd[line] = static_cast<int32_t>(best);
  });
}

void Softmax(const ir::SoftmaxAttrs& a, const HostTensor& x, HostTensor& y) {
  const auto xd = x.f32();
  auto yd = y.f32();
  ForEachLine(x, a.axis, [&](int64_t len, auto at, size_t) {
    // Subtracting the max keeps exp() <= 1: no overflow for large logits. A NaN max
    // makes every output NaN, as in PyTorch.
    float max = xd[at(0)];
    for (int64_t k = 1; k < len; ++k) {
      const float v = xd[at(k)];
      if (v > max || std::isnan(v)) max = v;
    }
    double sum = 0.0;
    for (int64_t k = 0; k < len; ++k) {
      const float e = std::exp(xd[at(k)] - max);
      yd[at(k)] = e;
      sum += e;
    }
    for (int64_t k = 0; k < len; ++k) {
      yd[at(k)] = static_cast<float>(static_cast<double>(yd[at(k)]) / sum);
    }
  });
}

void LayerNorm(const ir::LayerNormAttrs& a, const HostTensor& x, const HostTensor* weight,
               const HostTensor* bias, HostTensor& y) {
  const int64_t depth = x.shape().empty() ? 1 : x.shape().back();
  const int64_t rows = x.num_elements() / depth;
  const auto xd = x.f32();
  auto yd = y.f32();
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = xd.data() + r * depth;
    double mean = 0.0;
    if (!a.rms) {
      for (int64_t c = 0; c < depth; ++c) mean += row[c];
      mean /= static_cast<double>(depth);
    }
    double var = 0.0;
    for (int64_t c = 0; c < depth; ++c) var += (row[c] - mean) * (row[c] - mean);
    var /= static_cast<double>(depth);
    const double inv = 1.0 / std::sqrt(var + a.eps);
    for (int64_t c = 0; c < depth; ++c) {
      double v = (row[c] - mean) * inv;
      if (weight) v *= weight->f32()[static_cast<size_t>(c)];
      if (bias) v += bias->f32()[static_cast<size_t>(c)];
      yd[static_cast<size_t>(r * depth + c)] = static_cast<float>(v);
    }
  }
}

}  // namespace tinyforge::exec
