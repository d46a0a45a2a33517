// The float kernels of a float model's other ops (docs/decisions.md 68) and the float model
// activations of f32_fns.def, on edges the e2e tests do not reach, against independent
// computations (libm in double here; the kernels use their own series).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/f32/f32.h"
#include "kernels/f32/f32_fn.h"

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> Softmax(const std::vector<float>& x, int32_t outer, int32_t length,
                           int32_t inner) {
  std::vector<float> y(x.size(), -1.0f);
  const f32_softmax_params p{outer, length, inner};
  f32_softmax__ref(&p, x.data(), y.data());
  return y;
}

TEST(F32Ops, SoftmaxMatchesDoubleAndItsEdges) {
  const std::vector<float> x = {1.0f, -2.0f, 1e30f, 88.0f, 89.0f, -kInf, 0.0f, 3.5f};
  const std::vector<float> y = Softmax(x, 1, 8, 1);
  double m = -INFINITY, s = 0.0;
  for (float v : x) m = std::max(m, static_cast<double>(v));
  for (float v : x) s += std::exp(static_cast<double>(v) - m);
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(static_cast<double>(x[i]) - m) / s;
    EXPECT_NEAR(y[i], want, 1e-7) << i;
  }
  EXPECT_EQ(y[0], 0.0f);  // exp(1 - 1e30) underflows: exactly 0
  EXPECT_EQ(y[2], 1.0f);
  // A row of -inf and a row with +inf: NaN (as torch.softmax).
  for (const std::vector<float>& r : {std::vector<float>{-kInf, -kInf}, {kInf, 0.0f}}) {
    const std::vector<float> z = Softmax(r, 1, 2, 1);
    EXPECT_TRUE(std::isnan(z[0]) && std::isnan(z[1]));
  }
  // Along a middle axis (inner 3): the same values as the rows transposed to the last axis.
  std::vector<float> a(2 * 4 * 3), t(a.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(static_cast<float>(i)) * 5.0f;
  for (int o = 0; o < 2; ++o)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 3; ++i) t[(o * 3 + i) * 4 + k] = a[(o * 4 + k) * 3 + i];
  const std::vector<float> ya = Softmax(a, 2, 4, 3), yt = Softmax(t, 6, 4, 1);
  for (int o = 0; o < 2; ++o)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 3; ++i) EXPECT_EQ(ya[(o * 4 + k) * 3 + i], yt[(o * 3 + i) * 4 + k]);
}

TEST(F32Ops, LayerNormEpsWeightBiasAndRms) {
  const std::vector<float> x = {1.0f, 2.0f, 4.0f, 8.0f, 3.0f, 3.0f, 3.0f, 3.0f};
  const std::vector<float> w = {1.0f, 0.5f, -2.0f, 3.0f}, b = {0.0f, 1.0f, 0.25f, -1.0f};
  for (float eps : {1e-5f, 1.0f}) {
    for (int32_t rms : {0, 1}) {
      std::vector<float> y(8);
      const f32_layernorm_params p{2, 4, eps, rms};
      f32_layernorm__ref(&p, x.data(), w.data(), b.data(), y.data());
      for (int r = 0; r < 2; ++r) {
        double mean = 0.0, var = 0.0;
        for (int d = 0; d < 4; ++d) mean += x[r * 4 + d] / 4.0;
        if (rms) mean = 0.0;
        for (int d = 0; d < 4; ++d) var += (x[r * 4 + d] - mean) * (x[r * 4 + d] - mean) / 4.0;
        for (int d = 0; d < 4; ++d) {
          const double want =
              (x[r * 4 + d] - mean) / std::sqrt(var + static_cast<double>(eps)) * w[d] + b[d];
          EXPECT_NEAR(y[r * 4 + d], want, 1e-6 * std::max(1.0, std::fabs(want)))
              << "eps " << eps << " rms " << rms << " at " << r << "," << d;
        }
      }
      if (!rms) {  // a constant row: exactly the bias (0 / sqrt(eps))
        for (int d = 0; d < 4; ++d) EXPECT_EQ(y[4 + d], b[d]);
      }
    }
  }
}

TEST(F32Ops, ReduceOrderNanAndMean) {
  const std::vector<float> x = {1e8f, 1.0f, -1e8f, 4.0f};
  float y = -1.0f;
  f32_reduce_params p{1, 3, 1, 0};  // sum in element order: (1e8 + 1) - 1e8 = 0 in float32
  f32_reduce__ref(&p, x.data(), &y);
  EXPECT_EQ(y, 0.0f);
  p = {1, 4, 1, 1};
  const std::vector<float> m = {1.0f, 2.0f, 3.0f, 4.0f};
  f32_reduce__ref(&p, m.data(), &y);
  EXPECT_EQ(y, 2.5f);
  p = {1, 4, 1, 2};
  const std::vector<float> n = {1.0f, NAN, 3.0f, kInf};
  f32_reduce__ref(&p, n.data(), &y);
  EXPECT_TRUE(std::isnan(y));  // torch.amax propagates NaN
  f32_reduce__ref(&p, x.data(), &y);
  EXPECT_EQ(y, 1e8f);
  // Over a middle axis: [2, 2, 2] summed over dim 1.
  const std::vector<float> c = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> s(4);
  p = {2, 2, 2, 0};
  f32_reduce__ref(&p, c.data(), s.data());
  EXPECT_EQ(s, (std::vector<float>{4, 6, 12, 14}));
}

TEST(F32Ops, ArgmaxTiesAndNan) {
  const std::vector<float> x = {1.0f, 5.0f, 5.0f, -2.0f, -2.0f, NAN, 7.0f};
  int32_t y = -1;
  f32_argmax_params p{1, 5, 1, 0};
  f32_argmax__ref(&p, x.data(), &y);
  EXPECT_EQ(y, 1);  // the first of the ties
  p.is_min = 1;
  f32_argmax__ref(&p, x.data(), &y);
  EXPECT_EQ(y, 3);
  p = {1, 7, 1, 0};
  f32_argmax__ref(&p, x.data(), &y);
  EXPECT_EQ(y, 5);  // NaN counts as the largest (torch.argmax)
  p.is_min = 1;
  f32_argmax__ref(&p, x.data(), &y);
  EXPECT_EQ(y, 5);
}

TEST(F32Ops, BmmBroadcastMatchesDouble) {
  // a: 3 batches of [2, 3]; b: one [3, 2] for every batch.
  std::vector<float> a(18), b(6), y(12);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.25f * static_cast<float>(i) - 2.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = 1.5f - 0.5f * static_cast<float>(i);
  const f32_bmm_params p{3, 2, 3, 2, 0, 1};
  f32_bmm__ref(&p, a.data(), b.data(), y.data());
  for (int n = 0; n < 3; ++n)
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 2; ++c) {
        double want = 0.0;
        for (int k = 0; k < 3; ++k) want += double{a[(n * 2 + r) * 3 + k]} * b[k * 2 + c];
        EXPECT_EQ(y[(n * 2 + r) * 2 + c], static_cast<float>(want));  // exact in float here
      }
}

TEST(F32Ops, ActivationsAsPyTorch) {
  using tinyforge::kernels::f32::Binary;
  using tinyforge::kernels::f32::Unary;
  for (float x : {-4.0f, -3.0f, -1.5f, -0.0f, 0.3f, 2.999f, 3.0f, 10.0f}) {
    const float r6 = std::min(std::max(x + 3.0f, 0.0f), 6.0f);
    EXPECT_EQ(Unary(kF32Hardswish, x), x * r6 / 6.0f) << x;
    EXPECT_EQ(Unary(kF32Hardsigmoid, x), r6 / 6.0f) << x;
    const double v = x;
    EXPECT_NEAR(Unary(kF32Gelu, x), 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))), 1e-6) << x;
    const double t = std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v));
    EXPECT_NEAR(Unary(kF32GeluTanh, x), 0.5 * v * (1.0 + t), 1e-6) << x;
    EXPECT_NEAR(Unary(kF32Silu, x), v / (1.0 + std::exp(-v)), 1e-6) << x;
    EXPECT_EQ(Binary(kF32Prelu, x, 0.25f), x >= 0.0f ? x : x * 0.25f) << x;
    EXPECT_NEAR(Binary(kF32Elu, x, 1.5f), x > 0.0f ? v : std::expm1(v) * 1.5, 1e-6) << x;
  }
  EXPECT_TRUE(std::isnan(Unary(kF32Hardswish, NAN)));
  EXPECT_TRUE(std::isnan(Binary(kF32Prelu, NAN, 0.1f)));
}

}  // namespace
