// Elementwise, pooling, reduction and data-movement reference ops; expected values by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "exec/ref_ops.h"
#include "kernels/f32/f32.h"

namespace tinyforge::exec {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

std::vector<float> Iota(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i + 1);
  return v;
}

std::vector<float> Values(const HostTensor& t) {
  return std::vector<float>(t.f32().begin(), t.f32().end());
}

HostTensor Out(ir::Shape s) { return HostTensor(ir::DType::kFloat32, std::move(s)); }

// The float fallback kernels (kernels/f32) against the host's libm in double, rounded to
// float32 (an independent oracle): within 1 ulp on a sweep of each function's domain, and
// C's special values (NaN, infinities, signed zeros).
float Ulps(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0.0f : 1e9f;
  if (a == b) return 0.0f;
  return std::fabs(a - b) / (std::nextafter(std::fabs(b), kInf) - std::fabs(b));
}
float Unary(int32_t fn, float x) {
  const f32_unary_params p{1, fn};
  float y = 0;
  f32_unary__ref(&p, &x, &y);
  return y;
}
float Binary(int32_t fn, float a, float b) {
  f32_binary_params p{};
  for (int i = 0; i < kS8BroadcastMaxDims; ++i) p.shape.out_dims[i] = 1;
  p.fn = fn;
  float y = 0;
  f32_binary__ref(&p, &a, &b, &y);
  return y;
}

TEST(F32Kernels, FunctionsWithinOneUlpOfLibm) {
  struct Case {
    int32_t fn;
    double (*ref)(double);
    float lo, hi;
  };
  const Case cases[] = {
      {kF32Exp, [](double v) { return std::exp(v); }, -100.0f, 88.0f},
      {kF32Log, [](double v) { return std::log(v); }, 1e-30f, 1e30f},
      {kF32Sqrt, [](double v) { return std::sqrt(v); }, 0.0f, 1e30f},
      {kF32Rsqrt, [](double v) { return 1.0 / std::sqrt(v); }, 1e-30f, 1e30f},
      {kF32Sin, [](double v) { return std::sin(v); }, -1000.0f, 1000.0f},
      {kF32Cos, [](double v) { return std::cos(v); }, -1000.0f, 1000.0f},
      {kF32Atan, [](double v) { return std::atan(v); }, -1e4f, 1e4f},
      {kF32Erf, [](double v) { return std::erf(v); }, -6.0f, 6.0f},
      {kF32Tanh, [](double v) { return std::tanh(v); }, -12.0f, 12.0f},
      {kF32Sigmoid, [](double v) { return 1.0 / (1.0 + std::exp(-v)); }, -100.0f, 100.0f},
  };
  for (const Case& c : cases) {
    const bool log_scale = c.lo > 0.0f;
    for (int i = 0; i <= 20000; ++i) {
      const double t = i / 20000.0;
      const float x = static_cast<float>(
          log_scale ? std::exp(std::log(c.lo) + t * (std::log(c.hi) - std::log(c.lo)))
                    : c.lo + t * (c.hi - c.lo));
      const float want = static_cast<float>(c.ref(x));
      ASSERT_LE(Ulps(Unary(c.fn, x), want), 1.0f) << "fn " << c.fn << " x " << x;
    }
  }
  for (int i = 0; i <= 4000; ++i) {
    const float a = -50.0f + 0.025f * static_cast<float>(i);
    const float b = 0.3f - 0.0125f * static_cast<float>(i);
    ASSERT_LE(Ulps(Binary(kF32Atan2, a, b), static_cast<float>(std::atan2(a, b))), 1.0f) << a;
    const float base = 0.01f + 0.005f * static_cast<float>(i);
    ASSERT_LE(Ulps(Binary(kF32Pow, base, b), static_cast<float>(std::pow(base, b))), 1.0f) << base;
  }
}

TEST(F32Kernels, SpecialValuesAsC) {
  EXPECT_EQ(Unary(kF32Exp, -kInf), 0.0f);
  EXPECT_EQ(Unary(kF32Exp, kInf), kInf);
  EXPECT_EQ(Unary(kF32Log, 0.0f), -kInf);
  EXPECT_TRUE(std::isnan(Unary(kF32Log, -1.0f)));
  EXPECT_TRUE(std::isnan(Unary(kF32Sin, kInf)));
  EXPECT_EQ(Unary(kF32Erf, 7.0f), 1.0f);
  EXPECT_TRUE(std::signbit(Unary(kF32Neg, 0.0f)));
  EXPECT_EQ(Binary(kF32Atan2, 0.0f, -0.0f), static_cast<float>(M_PI));
  EXPECT_EQ(Binary(kF32Atan2, -0.0f, 1.0f), -0.0f);
  EXPECT_TRUE(std::signbit(Binary(kF32Atan2, -0.0f, 1.0f)));
  EXPECT_EQ(Binary(kF32Pow, -2.0f, 3.0f), -8.0f);
  EXPECT_TRUE(std::isnan(Binary(kF32Pow, -2.0f, 0.5f)));
  EXPECT_EQ(Binary(kF32Pow, 0.0f, -1.0f), kInf);
  EXPECT_EQ(Binary(kF32Pow, kNaN, 0.0f), 1.0f);
  EXPECT_TRUE(std::isnan(Binary(kF32Maximum, 1.0f, kNaN)));
  // cumsum: accumulated in double, as PyTorch.
  const f32_cumsum_params c{1, 3, 2};
  const float x[6] = {1e8f, 1.0f, 1.0f, 2.0f, -1e8f, 3.0f};
  float y[6];
  f32_cumsum__ref(&c, x, y);
  EXPECT_EQ(std::vector<float>(y, y + 6),
            (std::vector<float>{1e8f, 1.0f, 1e8f, 3.0f, 1.0f, 6.0f}));
}

TEST(RefElementwise, ReluHardtanhPropagateNaN) {
  const HostTensor x = HostTensor::Float({5}, {-2, -0.5f, 0, 3, 7});
  HostTensor y = Out({5});
  Relu(x, y);
  EXPECT_EQ(Values(y), (std::vector<float>{0, 0, 0, 3, 7}));
  Hardtanh(ir::HardtanhAttrs{0, 6}, x, y);  // ReLU6
  EXPECT_EQ(Values(y), (std::vector<float>{0, 0, 0, 3, 6}));
  HostTensor n = HostTensor::Float({1}, {kNaN});
  HostTensor yn = Out({1});
  Relu(n, yn);
  EXPECT_TRUE(std::isnan(yn.f32()[0]));
  Hardtanh(ir::HardtanhAttrs{-1, 1}, n, yn);
  EXPECT_TRUE(std::isnan(yn.f32()[0]));
}

// The table-lookup activations (ir/unary_fn.cc) at points with exact or known values.
TEST(RefElementwise, UnaryFns) {
  using ir::OpType;
  HostTensor y = Out({4});
  const HostTensor x = HostTensor::Float({4}, {-4, -1.5f, 0, 2});
  UnaryFn(OpType::kHardswish, ir::NoAttrs{}, x, y);
  EXPECT_EQ(Values(y), (std::vector<float>{0.0f, -0.375f, 0.0f, 5.0f / 3.0f}));
  UnaryFn(OpType::kHardsigmoid, ir::NoAttrs{}, x, y);
  EXPECT_EQ(Values(y), (std::vector<float>{0.0f, 0.25f, 0.5f, 5.0f / 6.0f}));
  UnaryFn(OpType::kLeakyRelu, ir::LeakyReluAttrs{0.25}, x, y);
  EXPECT_EQ(Values(y), (std::vector<float>{-1.0f, -0.375f, 0.0f, 2.0f}));
  UnaryFn(OpType::kElu, ir::EluAttrs{2.0, 1.0, 1.0}, x, y);
  EXPECT_NEAR(y.f32()[0], 2.0 * std::expm1(-4.0), 1e-6);
  EXPECT_EQ(y.f32()[3], 2.0f);
  UnaryFn(OpType::kSilu, ir::NoAttrs{}, x, y);
  EXPECT_NEAR(y.f32()[3], 2.0 / (1.0 + std::exp(-2.0)), 1e-6);
  EXPECT_EQ(y.f32()[2], 0.0f);
  UnaryFn(OpType::kGelu, ir::GeluAttrs{false}, x, y);
  EXPECT_NEAR(y.f32()[3], 1.9544997, 1e-6);  // 2 * Phi(2)
  UnaryFn(OpType::kGelu, ir::GeluAttrs{true}, x, y);
  EXPECT_NEAR(y.f32()[3], 1.9545977, 1e-6);  // tanh form
  UnaryFn(OpType::kMish, ir::NoAttrs{}, x, y);
  EXPECT_NEAR(y.f32()[3], 1.9439589, 1e-6);  // 2 tanh(log(1 + e^2))
  EXPECT_NEAR(y.f32()[0], -0.0725917, 1e-6);
  UnaryFn(OpType::kSoftplus, ir::SoftplusAttrs{1.0, 20.0}, x, y);
  EXPECT_NEAR(y.f32()[2], std::log(2.0), 1e-7);
  UnaryFn(OpType::kSoftplus, ir::SoftplusAttrs{2.0, 3.0}, x, y);
  EXPECT_EQ(y.f32()[3], 2.0f);  // 2 * 2 > 3: x itself
  EXPECT_NEAR(y.f32()[1], std::log1p(std::exp(-3.0)) / 2.0, 1e-7);
  UnaryFn(OpType::kLogSigmoid, ir::NoAttrs{}, x, y);
  EXPECT_NEAR(y.f32()[2], -std::log(2.0), 1e-7);
  EXPECT_NEAR(y.f32()[0], -4.0 - std::log1p(std::exp(-4.0)), 1e-6);
  UnaryFn(OpType::kHardshrink, ir::ShrinkAttrs{1.5}, x, y);  // |x| <= lambd: 0
  EXPECT_EQ(Values(y), (std::vector<float>{-4.0f, 0.0f, 0.0f, 2.0f}));
  UnaryFn(OpType::kSoftshrink, ir::ShrinkAttrs{1.5}, x, y);
  EXPECT_EQ(Values(y), (std::vector<float>{-2.5f, 0.0f, 0.0f, 0.5f}));
  UnaryFn(OpType::kThreshold, ir::ThresholdAttrs{0.0, 7.0}, x, y);  // x <= threshold: value
  EXPECT_EQ(Values(y), (std::vector<float>{7.0f, 7.0f, 7.0f, 2.0f}));
  UnaryFn(OpType::kSquare, ir::NoAttrs{}, x, y);
  EXPECT_EQ(Values(y), (std::vector<float>{16.0f, 2.25f, 0.0f, 4.0f}));
}

TEST(RefElementwise, SigmoidTanhAdd) {
  HostTensor y = Out({3});
  UnaryFn(ir::OpType::kSigmoid, ir::NoAttrs{}, HostTensor::Float({3}, {0, 100, -100}), y);
  EXPECT_EQ(Values(y), (std::vector<float>{0.5f, 1.0f, 0.0f}));
  UnaryFn(ir::OpType::kTanh, ir::NoAttrs{}, HostTensor::Float({3}, {0, 20, -20}), y);
  EXPECT_EQ(Values(y), (std::vector<float>{0.0f, 1.0f, -1.0f}));
  // sigmoid(ln 3) = 1 / (1 + 1/3) = 0.75
  UnaryFn(ir::OpType::kSigmoid, ir::NoAttrs{}, HostTensor::Float({3}, {std::log(3.0f), 0, 0}), y);
  EXPECT_NEAR(y.f32()[0], 0.75f, 1e-7);
  Binary(BinaryOp::kAdd, HostTensor::Float({3}, {1, 2, 3}), HostTensor::Float({3}, {0.5f, -2, 10}),
         y);
  EXPECT_EQ(Values(y), (std::vector<float>{1.5f, 0, 13}));
}

TEST(RefElementwise, BinaryBroadcasts) {
  // [2, 3] op [3] and [2, 1] op [1, 3] (NumPy broadcasting), every binary op.
  const HostTensor a = HostTensor::Float({2, 3}, {1, 2, 3, 4, 5, 6});
  const HostTensor row = HostTensor::Float({3}, {10, 0, -1});
  HostTensor y = Out({2, 3});
  Binary(BinaryOp::kSub, a, row, y);
  EXPECT_EQ(Values(y), (std::vector<float>{-9, 2, 4, -6, 5, 7}));
  Binary(BinaryOp::kMul, row, a, y);
  EXPECT_EQ(Values(y), (std::vector<float>{10, 0, -3, 40, 0, -6}));
  Binary(BinaryOp::kMaximum, a, row, y);
  EXPECT_EQ(Values(y), (std::vector<float>{10, 2, 3, 10, 5, 6}));
  Binary(BinaryOp::kMinimum, a, row, y);
  EXPECT_EQ(Values(y), (std::vector<float>{1, 0, -1, 4, 0, -1}));
  Binary(BinaryOp::kAdd, HostTensor::Float({2, 1}, {1, 2}), HostTensor::Float({1, 3}, {0, 10, 20}),
         y);
  EXPECT_EQ(Values(y), (std::vector<float>{1, 11, 21, 2, 12, 22}));
}

TEST(RefMaxPool, StridedWindowsPaddingAndNaN) {
  // 4x4 of 1..16, 2x2 stride 2: maxima of each quadrant = [6, 8, 14, 16].
  ir::MaxPool2dAttrs a;
  a.kernel = {2, 2};
  a.stride = {2, 2};
  HostTensor y = Out({1, 1, 2, 2});
  MaxPool2d(a, HostTensor::Float({1, 1, 4, 4}, Iota(16)), y);
  EXPECT_EQ(Values(y), (std::vector<float>{6, 8, 14, 16}));
  // Padding never wins even when every value is negative: 1x3 of [-5,-6,-7], k 2, s 2,
  // pad left 1: windows {pad,-5} and {-6,-7} -> [-5, -6].
  ir::MaxPool2dAttrs p;
  p.kernel = {1, 2};
  p.stride = {1, 2};
  p.padding = {0, 1, 0, 0};
  HostTensor yp = Out({1, 1, 1, 2});
  MaxPool2d(p, HostTensor::Float({1, 1, 1, 3}, {-5, -6, -7}), yp);
  EXPECT_EQ(Values(yp), (std::vector<float>{-5, -6}));
  HostTensor yn = Out({1, 1, 2, 2});
  std::vector<float> v = Iota(16);
  v[0] = kNaN;
  MaxPool2d(a, HostTensor::Float({1, 1, 4, 4}, v), yn);
  EXPECT_TRUE(std::isnan(yn.f32()[0]));
  EXPECT_EQ(yn.f32()[3], 16);
}

TEST(RefMaxPool, CeilModeAndDilation) {
  // 3x3 of 1..9, k 2, s 2, ceil: windows rows {0,1},{2}, cols {0,1},{2} -> [5, 6, 8, 9].
  ir::MaxPool2dAttrs a;
  a.kernel = {2, 2};
  a.stride = {2, 2};
  a.ceil_mode = true;
  HostTensor y = Out({1, 1, 2, 2});
  MaxPool2d(a, HostTensor::Float({1, 1, 3, 3}, Iota(9)), y);
  EXPECT_EQ(Values(y), (std::vector<float>{5, 6, 8, 9}));
  // 1x5 of [5,1,4,2,3], k 2 dilation 2 (taps j, j+2): [max(5,4), max(1,2), max(4,3)].
  ir::MaxPool2dAttrs d;
  d.kernel = {1, 2};
  d.dilation = {1, 2};
  HostTensor yd = Out({1, 1, 1, 3});
  MaxPool2d(d, HostTensor::Float({1, 1, 1, 5}, {5, 1, 4, 2, 3}), yd);
  EXPECT_EQ(Values(yd), (std::vector<float>{5, 2, 4}));
}

TEST(RefAvgPool, CountIncludePadAndDivisorOverride) {
  // 2x2 image [1,2,3,4], k 2, s 2, padding 1: each window holds one pixel and three pads.
  ir::AvgPool2dAttrs a;
  a.kernel = {2, 2};
  a.stride = {2, 2};
  a.padding = {1, 1, 1, 1};
  const HostTensor x = HostTensor::Float({1, 1, 2, 2}, {1, 2, 3, 4});
  HostTensor y = Out({1, 1, 2, 2});
  AvgPool2d(a, x, y);  // count_include_pad: pixel / 4
  EXPECT_EQ(Values(y), (std::vector<float>{0.25f, 0.5f, 0.75f, 1.0f}));
  a.count_include_pad = false;  // pixel / 1
  AvgPool2d(a, x, y);
  EXPECT_EQ(Values(y), (std::vector<float>{1, 2, 3, 4}));
  a.divisor_override = 3;  // pixel / 3
  AvgPool2d(a, x, y);
  EXPECT_EQ(Values(y), (std::vector<float>{1.0f / 3, 2.0f / 3, 1.0f, 4.0f / 3}));
}

TEST(RefAvgPool, CeilModeOverhangIsNotCounted) {
  // 3x3 of 1..9, k 2, s 2, ceil: (1+2+4+5)/4 = 3, (3+6)/2 = 4.5, (7+8)/2 = 7.5, 9/1 = 9,
  // with or without count_include_pad (PyTorch divides by the window clipped to the
  // padded input; there is no padding here).
  ir::AvgPool2dAttrs a;
  a.kernel = {2, 2};
  a.stride = {2, 2};
  a.ceil_mode = true;
  const HostTensor x = HostTensor::Float({1, 1, 3, 3}, Iota(9));
  HostTensor y = Out({1, 1, 2, 2});
  for (bool include : {true, false}) {
    a.count_include_pad = include;
    AvgPool2d(a, x, y);
    EXPECT_EQ(Values(y), (std::vector<float>{3, 4.5f, 7.5f, 9})) << include;
  }
}

TEST(RefAvgPool, ThreeDimInputAndStride1) {
  // [C,H,W] with C = 2: 3x3 of 1..9, k 2, s 1: [3, 4, 6, 7]; channel 2 = 10..18: +9.
  ir::AvgPool2dAttrs a;
  a.kernel = {2, 2};
  HostTensor y = Out({2, 2, 2});
  AvgPool2d(a, HostTensor::Float({2, 3, 3}, Iota(18)), y);
  EXPECT_EQ(Values(y), (std::vector<float>{3, 4, 6, 7, 12, 13, 15, 16}));
}

TEST(RefMean, DimsAndKeepdim) {
  // [2,3] = [[1,2,3],[4,5,6]]: mean over dim 1 = [2, 5]; over dim 0 = [2.5, 3.5, 4.5].
  const HostTensor x = HostTensor::Float({2, 3}, Iota(6));
  HostTensor y = Out({2});
  Mean(ir::MeanAttrs{{1}, false}, x, y);
  EXPECT_EQ(Values(y), (std::vector<float>{2, 5}));
  HostTensor y0 = Out({1, 3});
  Mean(ir::MeanAttrs{{0}, true}, x, y0);
  EXPECT_EQ(Values(y0), (std::vector<float>{2.5f, 3.5f, 4.5f}));
  // Global average pooling of [1,2,2,2]: channel means [2.5, 6.5].
  HostTensor g = Out({1, 2, 1, 1});
  Mean(ir::MeanAttrs{{-1, -2}, true}, HostTensor::Float({1, 2, 2, 2}, Iota(8)), g);
  EXPECT_EQ(Values(g), (std::vector<float>{2.5f, 6.5f}));
}

TEST(RefLayerNorm, RowsOfLastDimWithAffineAndRms) {
  // Rows [1, 3] and [2, 2]: mean 2 / var 1 and a constant row (eps 0 -> 0 / 0 = NaN is
  // PyTorch's too; eps 1 here gives 0).
  HostTensor y = Out({2, 2});
  LayerNorm(ir::LayerNormAttrs{1.0, false}, HostTensor::Float({2, 2}, {1, 3, 2, 2}), nullptr,
            nullptr, y);
  const float s = 1.0f / std::sqrt(2.0f);  // (x - mean) / sqrt(1 + 1)
  EXPECT_NEAR(y.f32()[0], -s, 1e-6);
  EXPECT_NEAR(y.f32()[1], s, 1e-6);
  EXPECT_EQ(y.f32()[2], 0.0f);
  // weight [2, 3], bias [1, -1], eps 0: [-1, 1] * w + b = [-1, 2].
  const HostTensor w = HostTensor::Float({2}, {2, 3}), b = HostTensor::Float({2}, {1, -1});
  LayerNorm(ir::LayerNormAttrs{0.0, false}, HostTensor::Float({1, 2}, {1, 3}), &w, &b, y);
  EXPECT_NEAR(y.f32()[0], -1.0f, 1e-6);
  EXPECT_NEAR(y.f32()[1], 2.0f, 1e-6);
  // rms: [3, 4] / sqrt(12.5) * [2, 3].
  LayerNorm(ir::LayerNormAttrs{0.0, true}, HostTensor::Float({1, 2}, {3, 4}), &w, nullptr, y);
  EXPECT_NEAR(y.f32()[0], 6.0 / std::sqrt(12.5), 1e-6);
  EXPECT_NEAR(y.f32()[1], 12.0 / std::sqrt(12.5), 1e-6);
}

TEST(RefSoftmax, ExactRatiosAndStability) {
  // logits [0, ln 2, ln 3]: exp = [1, 2, 3] / 6.
  HostTensor y = Out({1, 3});
  Softmax(ir::SoftmaxAttrs{-1}, HostTensor::Float({1, 3}, {0, std::log(2.0f), std::log(3.0f)}), y);
  EXPECT_NEAR(y.f32()[0], 1.0 / 6, 1e-7);
  EXPECT_NEAR(y.f32()[1], 2.0 / 6, 1e-7);
  EXPECT_NEAR(y.f32()[2], 3.0 / 6, 1e-7);
  // Large logits would overflow exp() without the max subtraction: [1000, 1000] -> 0.5 each.
  HostTensor y2 = Out({2});
  Softmax(ir::SoftmaxAttrs{0}, HostTensor::Float({2}, {1000, 1000}), y2);
  EXPECT_EQ(Values(y2), (std::vector<float>{0.5f, 0.5f}));
  // Along axis 0 of [2,2]: columns [0, 0] and [1, 1] are uniform.
  HostTensor y3 = Out({2, 2});
  Softmax(ir::SoftmaxAttrs{0}, HostTensor::Float({2, 2}, {0, 1, 0, 1}), y3);
  EXPECT_EQ(Values(y3), (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f}));
  // -inf logit gets 0; NaN poisons its row.
  Softmax(ir::SoftmaxAttrs{0}, HostTensor::Float({2}, {-kInf, 3}), y2);
  EXPECT_EQ(Values(y2), (std::vector<float>{0, 1}));
  Softmax(ir::SoftmaxAttrs{0}, HostTensor::Float({2}, {kNaN, 3}), y2);
  EXPECT_TRUE(std::isnan(y2.f32()[1]));
}

TEST(RefShape, ReshapeAndCat) {
  HostTensor r = Out({3, 2});
  Reshape(HostTensor::Float({2, 3}, Iota(6)), r);
  EXPECT_EQ(r.shape(), (ir::Shape{3, 2}));
  EXPECT_EQ(Values(r), Iota(6));
  // cat on axis 1 of [[1],[2]] and [[3,4],[5,6]] -> [[1,3,4],[2,5,6]].
  const HostTensor a = HostTensor::Float({2, 1}, {1, 2});
  const HostTensor b = HostTensor::Float({2, 2}, {3, 4, 5, 6});
  const HostTensor* xs[] = {&a, &b};
  HostTensor y = Out({2, 3});
  Cat(ir::CatAttrs{1}, xs, y);
  EXPECT_EQ(Values(y), (std::vector<float>{1, 3, 4, 2, 5, 6}));
  const HostTensor i1 = HostTensor::Int8({2}, {1, -2});
  const HostTensor i2 = HostTensor::Int8({1}, {7});
  const HostTensor* is[] = {&i1, &i2};
  HostTensor yi(ir::DType::kInt8, {3});
  Cat(ir::CatAttrs{-1}, is, yi);
  EXPECT_EQ(std::vector<int8_t>(yi.i8().begin(), yi.i8().end()), (std::vector<int8_t>{1, -2, 7}));
}

// gather along axis 1 of [2, 3, 2] by 2-D indices [[2, 0]] -> [2, 1, 2, 2]; a bad index fails.
TEST(RefShape, GatherByIndicesAndRange) {
  const HostTensor x = HostTensor::Float({2, 3, 2}, Iota(12));
  const HostTensor idx = HostTensor::Int32({1, 2}, {2, 0});
  HostTensor y = Out({2, 1, 2, 2});
  ASSERT_TRUE(Gather(ir::GatherAttrs{1}, x, idx, y).ok());
  EXPECT_EQ(Values(y), (std::vector<float>{5, 6, 1, 2, 11, 12, 7, 8}));
  HostTensor e = Out({2, 2});  // embedding rows of a [3, 2] table
  ASSERT_TRUE(Gather(ir::GatherAttrs{0}, HostTensor::Float({3, 2}, Iota(6)),
                     HostTensor::Int32({2}, {1, 1}), e).ok());
  EXPECT_EQ(Values(e), (std::vector<float>{3, 4, 3, 4}));
  for (int32_t bad : {3, -1}) {
    const auto st = Gather(ir::GatherAttrs{1}, x, HostTensor::Int32({1}, {bad}), y);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.error().message().find("out of range"), std::string::npos);
  }
}

}  // namespace
}  // namespace tinyforge::exec
