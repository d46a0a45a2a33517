// compiler/quant arithmetic against hand-worked values and TFLite's documented behaviour.
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/add/add_limits.h"
#include "kernels/add/add_linear.h"
#include "quant/kernel_params.h"
#include "quant/quant_util.h"

namespace q = tinyforge::quant;

namespace {

TEST(QuantizeMultiplier, HandWorked) {
  EXPECT_EQ(q::QuantizeMultiplier(1.0), (q::QuantizedMultiplier{1 << 30, 1}));
  EXPECT_EQ(q::QuantizeMultiplier(0.5), (q::QuantizedMultiplier{1 << 30, 0}));
  EXPECT_EQ(q::QuantizeMultiplier(0.75), (q::QuantizedMultiplier{3 << 29, 0}));
  EXPECT_EQ(q::QuantizeMultiplier(3.0), (q::QuantizedMultiplier{3 << 29, 2}));
  EXPECT_EQ(q::QuantizeMultiplier(0.0), (q::QuantizedMultiplier{0, 0}));
  // 2^-33: frexp gives shift -32 < -31 -> flushed to zero.
  EXPECT_EQ(q::QuantizeMultiplier(std::ldexp(1.0, -33)), (q::QuantizedMultiplier{0, 0}));
  EXPECT_EQ(q::QuantizeMultiplier(std::ldexp(1.0, -32)), (q::QuantizedMultiplier{1 << 30, -31}));
  // Mantissa 1 - 2^-40 rounds to 2^31: renormalized to 2^30 with shift + 1.
  EXPECT_EQ(q::QuantizeMultiplier(1.0 - std::ldexp(1.0, -40)),
            (q::QuantizedMultiplier{1 << 30, 1}));
  // Round half away from zero on the Q31 mantissa: 0.5 + 2^-32 = (2^31 + 1) / 2^32.
  EXPECT_EQ(q::QuantizeMultiplier(0.5 + std::ldexp(1.0, -32)),
            (q::QuantizedMultiplier{(1 << 30) + 1, 0}));
}

TEST(QuantizeMultiplier, NonFiniteIsOutOfEveryRange) {
  // A float ratio of finite scales that overflows (found by the .tflite fuzzer in a
  // HARD_SWISH with a tiny output scale): no undefined conversion, a shift no kernel takes.
  const float ratio = (1.0f / 128.0f) * 1e30f / 1e-30f;
  ASSERT_TRUE(std::isinf(ratio));
  EXPECT_GT(q::QuantizeMultiplier(static_cast<double>(ratio)).shift, 1000);
  EXPECT_FALSE(q::QuantizeMultiplierSmallerThanOneExp(static_cast<double>(ratio)).ok());
  EXPECT_FALSE(q::HardSwishTable({1e30f, 0}, {1e-30f, 0}).ok());
}

TEST(QuantizeMultiplier, RangeChecks) {
  EXPECT_TRUE(q::QuantizeMultiplierSmallerThanOneExp(0.3).ok());
  EXPECT_FALSE(q::QuantizeMultiplierSmallerThanOneExp(1.0).ok());
  EXPECT_FALSE(q::QuantizeMultiplierSmallerThanOneExp(0.0).ok());
  EXPECT_TRUE(q::QuantizeMultiplierGreaterThanOne(1.5).ok());
  EXPECT_FALSE(q::QuantizeMultiplierGreaterThanOne(1.0).ok());
}

TEST(CalculateInputRadius, HandWorked) {
  // (2^4 - 1) * 2^27 / 2^20 = 15 * 128 = 1920.
  EXPECT_EQ(q::CalculateInputRadius(4, 20, 31), 1920);
  // Softmax: (2^5 - 1) * 2^26 / 2^25 = 62.
  EXPECT_EQ(q::CalculateInputRadius(5, 25), 62);
  EXPECT_EQ(q::CalculateInputRadius(5, 31), 0);  // 31 * 2^26 / 2^31 = 0.97 -> 0
}

TEST(ActivationRange, FloatArithmeticAsTflite) {
  using q::Activation;
  EXPECT_EQ(*q::ActivationRangeInt8(Activation::kNone, 0.1f, 3), (q::ActivationRange{-128, 127}));
  EXPECT_EQ(*q::ActivationRangeInt8(Activation::kRelu, 0.1f, 3), (q::ActivationRange{3, 127}));
  // 6 / 0.05f = 119.99999.. in float rounds to 120.0f -> -10 + 120.
  EXPECT_EQ(*q::ActivationRangeInt8(Activation::kRelu6, 0.05f, -10),
            (q::ActivationRange{-10, 110}));
  // Relu6 bound past int8: clamped to 127.
  EXPECT_EQ(*q::ActivationRangeInt8(Activation::kRelu6, 0.01f, -128),
            (q::ActivationRange{-128, 127}));
  EXPECT_EQ(*q::ActivationRangeInt8(Activation::kReluN1To1, 0.5f, 0), (q::ActivationRange{-2, 2}));
  EXPECT_FALSE(q::ActivationRangeInt8(Activation::kRelu, 0.0f, 0).ok());
}

TEST(Padding, TfliteSameAndValid) {
  // SAME, in 49, k 10, stride 2: out 25, total (24 * 2 + 10 - 49) = 9 -> top 4, bottom 5.
  const q::Padding2D p = q::TflitePadding(q::PaddingType::kSame, 49, 10, 10, 4, 2, 2, 1, 1);
  EXPECT_EQ(p.top, 4);
  EXPECT_EQ(p.bottom, 5);
  // in 10, k 4, stride 2: out 5, total 8 + 4 - 10 = 2 -> 1 / 1.
  EXPECT_EQ(p.left, 1);
  EXPECT_EQ(p.right, 1);
  EXPECT_EQ(q::TfliteOutputSize(q::PaddingType::kValid, 9, 3, 2, 2), 3);  // eff 5: (9+2-5)/2
  const q::Padding2D v = q::TflitePadding(q::PaddingType::kValid, 9, 9, 3, 3, 2, 2, 2, 2);
  EXPECT_EQ(v.top + v.bottom + v.left + v.right, 0);
}

TEST(KernelParams, ConvHandWorked) {
  q::ConvSpec s;
  s.in_h = s.in_w = 1, s.in_c = 2, s.out_c = 1, s.k_h = s.k_w = 1;
  const std::vector<float> w_scales = {0.5f};
  auto kp = q::MakeConvParams(s, {1.0f, 2}, w_scales, {1.0f, -3});
  ASSERT_TRUE(kp.ok()) << kp.error().message();
  const s8_conv_params p = kp->Bind();
  EXPECT_EQ(p.multiplier[0], 1 << 30);  // 1 * 0.5 / 1
  EXPECT_EQ(p.shift[0], 0);
  // acc = 3 * (10 - 2) + (-1) * (-20 - 2) + 5 = 51; * 0.5 = 25.5 -> 26; - 3 = 23.
  const int8_t in[] = {10, -20}, w[] = {3, -1};
  const int32_t bias[] = {5};
  int8_t out = 0;
  s8_conv__ref(&p, in, w, bias, &out, nullptr);
  EXPECT_EQ(out, 23);
}

TEST(KernelParams, Diagnostics) {
  q::ConvSpec s;
  s.in_h = s.in_w = 4, s.in_c = 3, s.out_c = 8, s.k_h = s.k_w = 3;
  const std::vector<float> bad_scales = {0.1f, 0.1f, 0.1f};
  auto r = q::MakeConvParams(s, {1.0f, 0}, bad_scales, {1.0f, 0});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "conv: weight_scales has 3 entries, expected 1 or 8");
  auto z = q::MakeConvParams(s, {1.0f, 300}, std::vector<float>{0.1f}, {1.0f, 0});
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.error().message(), "conv: input.zero_point 300 is outside int8 [-128, 127]");
  const int32_t dims[] = {1, 4, 4, 8};
  const int32_t bad_axes[] = {1, 3};
  EXPECT_FALSE(q::MakeMeanParams(dims, bad_axes, {1.0f, 0}, {1.0f, 0}).ok());
  EXPECT_FALSE(q::MakeSoftmaxParams(dims, 1.0f, {1.0f, 0}, {1.0f / 256, 0}).ok());
}

TEST(KernelParams, MeanFoldsCountLikeTflite) {
  // in/out scale 1 -> {2^30, 1}; count 49: s = floor(log2 49) = 5,
  // multiplier = (2^30 << 5) / 49 = 701219150, shift = 1 - 5 = -4.
  const int32_t dims[] = {1, 7, 7, 16};
  const int32_t axes[] = {1, 2};
  auto p = q::MakeMeanParams(dims, axes, {0.5f, 3}, {0.5f, -1});
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->outer, 1);
  EXPECT_EQ(p->reduce_size, 49);
  EXPECT_EQ(p->inner, 16);
  EXPECT_EQ(p->multiplier, 701219150);
  EXPECT_EQ(p->shift, -4);
}

TEST(KernelParams, SoftmaxBetaScaling) {
  // beta 1, in_scale 2^-4: 2^-4 * 2^26 = 2^22 -> {2^30, 23}; radius 31 * 2^26 / 2^23 = 248.
  const int32_t dims[] = {2, 10};
  auto p = q::MakeSoftmaxParams(dims, 1.0f, {0.0625f, 0}, {1.0f / 256, -128});
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->input_multiplier, 1 << 30);
  EXPECT_EQ(p->input_left_shift, 23);
  EXPECT_EQ(p->diff_min, -248);
  EXPECT_EQ(p->rows, 2);
  EXPECT_EQ(p->depth, 10);
  // beta 2 doubles the real multiplier: shift 24, radius halves.
  auto p2 = q::MakeSoftmaxParams(dims, 2.0f, {0.0625f, 0}, {1.0f / 256, -128});
  ASSERT_TRUE(p2.ok());
  EXPECT_EQ(p2->input_left_shift, 24);
  EXPECT_EQ(p2->diff_min, -124);
}

TEST(KernelParams, LogisticInputScaling) {
  // in_scale 1/16: 2^-4 * 2^27 = 2^23 -> frexp 0.5, exponent 24 -> multiplier 2^30.
  auto p = q::MakeLogisticParams(4, {0.0625f, 5}, {1.0f / 256, -128});
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->input_multiplier, 1 << 30);
  EXPECT_EQ(p->input_left_shift, 24);
  EXPECT_EQ(p->input_range_radius, 120);  // 15 * 2^27 / 2^24
  EXPECT_EQ(p->input_zero_point, 5);
  EXPECT_FALSE(q::MakeTanhParams(4, {0.0625f, 5}, {1.0f / 256, -128}).ok());
}

TEST(KernelParams, AddMultipliers) {
  // s1 = 0.5, s2 = 0.25: twice_max = 1; 0.5 -> {2^30, 0}, 0.25 -> {2^30, -1};
  // out 1 / (2^20 * 0.5) = 2^-19 -> {2^30, -18}.
  const int32_t dims[] = {1, 2, 2, 3};
  auto p = q::MakeAddParams(dims, dims, {0.5f, 1}, {0.25f, -2}, {0.5f, 0}, q::Activation::kNone);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->left_shift, 20);
  EXPECT_EQ(p->input1_multiplier, 1 << 30);
  EXPECT_EQ(p->input1_shift, 0);
  EXPECT_EQ(p->input2_shift, -1);
  EXPECT_EQ(p->output_shift, -18);
  EXPECT_EQ(p->shape.out_dims[5], 3);
  EXPECT_EQ(p->shape.in1_strides[3], 6);
}

// The linear form of ADD / SUB (kernels/add/add_linear.h): on TFLite-style parameters from
// seeded random scales and zero points (both roundings, with and without a ReLU clamp), the
// search finds a form for nearly every op, and every form it returns reproduces the
// reference element function on all 65,536 pairs (checked here independently of the
// search's own interval arithmetic); gamma moved by half an output step breaks it, and the
// runtime validator's spot check (add_limits.h) refuses the moved form.
TEST(KernelParams, AddLinearForm) {
  namespace al = tinyforge::add_linear;
  const int32_t dims[] = {1, 4};
  uint64_t state = 0x9E3779B97F4A7C15ull;
  const auto next = [&state] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return static_cast<double>(state % 1000000) / 1000000.0;
  };
  int found = 0, total = 0, off_by_one_broke = 0;
  for (int c = 0; c < 48; ++c) {
    const float s1 = static_cast<float>(0.005 + 0.1 * next());
    const float s2 = static_cast<float>(0.005 + 0.1 * next());
    const float so = static_cast<float>((s1 > s2 ? s1 : s2) * (0.6 + 2.0 * next()));
    const int32_t z1 = static_cast<int32_t>(next() * 60) - 30;
    const int32_t z2 = static_cast<int32_t>(next() * 60) - 30;
    const int32_t zo = static_cast<int32_t>(next() * 60) - 30;
    const bool sub = c % 4 == 3;
    auto p = q::MakeAddParams(dims, dims, {s1, z1}, {s2, z2}, {so, zo},
                              c % 5 == 2 ? q::Activation::kRelu : q::Activation::kNone);
    ASSERT_TRUE(p.ok()) << p.error().message();
    p->rounding = c % 2 == 0 ? TF_ROUNDING_SINGLE : TF_ROUNDING_DOUBLE;
    ++total;
    if (!q::FindAddLinearForm(&*p, sub)) {
      EXPECT_EQ(p->lin_shift, 0);
      continue;
    }
    ++found;
    EXPECT_GE(p->lin_shift, 1);
    EXPECT_LE(p->lin_shift, al::kMaxShift);
    int mismatches = 0;
    s8_add_params worse = *p;
    worse.lin_gamma += 1 << (p->lin_shift - 1);
    bool worse_differs = false;
    for (int32_t x1 = -128; x1 < 128; ++x1) {
      for (int32_t x2 = -128; x2 < 128; ++x2) {
        const int32_t want = sub ? al::Element<true>(*p, x1, x2) : al::Element<false>(*p, x1, x2);
        if (al::Evaluate(*p, x1, x2) != want) ++mismatches;
        if (al::Evaluate(worse, x1, x2) != want) worse_differs = true;
      }
    }
    EXPECT_EQ(mismatches, 0) << "case " << c;
    if (worse_differs) ++off_by_one_broke;
    // The runtime validator's spot check accepts the form and refuses the moved one.
    const auto check = sub ? s8_sub_check : s8_add_check;
    EXPECT_EQ(check(*p), nullptr) << "case " << c;
    EXPECT_NE(check(worse), nullptr) << "case " << c;
  }
  EXPECT_GE(found, total * 9 / 10) << found << " of " << total;
  EXPECT_EQ(off_by_one_broke, found);
}

TEST(KernelParams, BroadcastShape) {
  const int32_t a[] = {1, 4, 4, 8};
  const int32_t b[] = {8};
  auto s = q::MakeBroadcastShape(a, b);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->out_dims[3], 4);
  EXPECT_EQ(s->in1_strides[3], 32);
  EXPECT_EQ(s->in2_strides[3], 0);
  EXPECT_EQ(s->in2_strides[5], 1);
  const int32_t c[] = {3};
  EXPECT_FALSE(q::MakeBroadcastShape(a, c).ok());
}

}  // namespace
