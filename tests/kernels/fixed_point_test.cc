// Fixed-point helpers against hand-worked values (see the comment on each expectation).
#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

#include "kernels/common/fixed_point.h"
#include "kernels/common/fixed_point_math.h"

namespace fx = tinyforge::fx;

namespace {

constexpr int32_t k2Pow30 = int32_t{1} << 30;

TEST(SaturatingRoundingDoublingHighMul, HandWorked) {
  // 2^30 * 2^30 / 2^31 = 2^29 exactly.
  EXPECT_EQ(fx::SaturatingRoundingDoublingHighMul(k2Pow30, k2Pow30), 1 << 29);
  EXPECT_EQ(fx::SaturatingRoundingDoublingHighMul(-k2Pow30, k2Pow30), -(1 << 29));
  // 3 * 0.5 = 1.5 rounds up to 2 ...
  EXPECT_EQ(fx::SaturatingRoundingDoublingHighMul(3, k2Pow30), 2);
  // ... and -1.5 to -1: the nudge is 2^30 - 1 below zero, then C++ truncation (VQRDMULH).
  EXPECT_EQ(fx::SaturatingRoundingDoublingHighMul(-3, k2Pow30), -1);
  // -2.5 -> (-5 * 2^30 - 2^30 + 1) / 2^31 = -2.99.. -> -2.
  EXPECT_EQ(fx::SaturatingRoundingDoublingHighMul(-5, k2Pow30), -2);
  // The only overflow: (-1) * (-1) in Q0.31 saturates to the largest value.
  EXPECT_EQ(fx::SaturatingRoundingDoublingHighMul(fx::kInt32Min, fx::kInt32Min), fx::kInt32Max);
  EXPECT_EQ(fx::SaturatingRoundingDoublingHighMul(fx::kInt32Min, fx::kInt32Max), -fx::kInt32Max);
  EXPECT_EQ(fx::SaturatingRoundingDoublingHighMul(0, fx::kInt32Max), 0);
}

TEST(RoundingDivideByPOT, TiesAwayFromZero) {
  EXPECT_EQ(fx::RoundingDivideByPOT(5, 1), 3);    // 2.5
  EXPECT_EQ(fx::RoundingDivideByPOT(-5, 1), -3);  // -2.5
  EXPECT_EQ(fx::RoundingDivideByPOT(4, 1), 2);
  EXPECT_EQ(fx::RoundingDivideByPOT(-4, 1), -2);
  EXPECT_EQ(fx::RoundingDivideByPOT(7, 2), 2);    // 1.75
  EXPECT_EQ(fx::RoundingDivideByPOT(6, 2), 2);    // 1.5
  EXPECT_EQ(fx::RoundingDivideByPOT(-6, 2), -2);  // -1.5
  EXPECT_EQ(fx::RoundingDivideByPOT(-5, 2), -1);  // -1.25
  EXPECT_EQ(fx::RoundingDivideByPOT(-7, 2), -2);  // -1.75
  EXPECT_EQ(fx::RoundingDivideByPOT(123, 0), 123);
  EXPECT_EQ(fx::RoundingDivideByPOT(fx::kInt32Max, 31), 1);   // 0.99999..
  EXPECT_EQ(fx::RoundingDivideByPOT(fx::kInt32Min, 31), -1);  // -1
  EXPECT_EQ(fx::RoundingDivideByPOT(k2Pow30, 31), 1);         // 0.5 -> 1
  EXPECT_EQ(fx::RoundingDivideByPOT(-k2Pow30, 31), -1);       // -0.5 -> -1
}

TEST(MultiplyByQuantizedMultiplier, DoubleRounding) {
  // The case the golden manifest quotes: 3 * 0.5 * 2^-2 = 0.375. Double rounding gives
  // round(round(1.5) / 4) = round(0.5) = 1; single rounding would give 0.
  EXPECT_EQ(fx::MultiplyByQuantizedMultiplier(3, k2Pow30, -2), 1);
  EXPECT_EQ(fx::MultiplyByQuantizedMultiplier(-3, k2Pow30, -2), 0);  // round(-1/4)
  // multiplier 0.5 * 2^1 = 1.0 is the identity.
  EXPECT_EQ(fx::MultiplyByQuantizedMultiplier(100, k2Pow30, 1), 100);
  EXPECT_EQ(fx::MultiplyByQuantizedMultiplier(-100, k2Pow30, 1), -100);
  // 0.75 * 2^3 = 6.
  EXPECT_EQ(fx::MultiplyByQuantizedMultiplier(7, 3 << 29, 3), 42);
  // 51 * 0.5 = 25.5 -> 26.
  EXPECT_EQ(fx::MultiplyByQuantizedMultiplier(51, k2Pow30, 0), 26);
  // A shift of -31 leaves only the sign-rounded half: 2^30 * 0.5 / 2^31 = 0.25 -> 0.
  EXPECT_EQ(fx::MultiplyByQuantizedMultiplier(k2Pow30, k2Pow30, -31), 0);
  EXPECT_EQ(fx::MultiplyByQuantizedMultiplierSmallerThanOneExp(51, k2Pow30, 0), 26);
  EXPECT_EQ(fx::MultiplyByQuantizedMultiplierGreaterThanOne(-3, k2Pow30, 2), -6);
}

TEST(SaturatingRoundingMultiplyByPOT, SaturatesAndRounds) {
  EXPECT_EQ(fx::SaturatingRoundingMultiplyByPOT<2>(3), 12);
  EXPECT_EQ(fx::SaturatingRoundingMultiplyByPOT<2>(1 << 29), fx::kInt32Max);
  EXPECT_EQ(fx::SaturatingRoundingMultiplyByPOT<2>(-(1 << 29)), fx::kInt32Min);
  EXPECT_EQ(fx::SaturatingRoundingMultiplyByPOT<-3>(12), 2);  // 1.5 -> 2
  EXPECT_EQ(fx::SaturatingRoundingMultiplyByPOT<0>(-7), -7);
}

TEST(CountLeadingZeros, Basics) {
  EXPECT_EQ(fx::CountLeadingZeros32(0), 32);
  EXPECT_EQ(fx::CountLeadingZeros32(1), 31);
  EXPECT_EQ(fx::CountLeadingZeros32(0x80000000u), 0);
  EXPECT_EQ(fx::CountLeadingZeros64(0), 64);
  EXPECT_EQ(fx::CountLeadingZeros64(49), 58);  // 49 < 64 = 2^6
  EXPECT_EQ(fx::CountLeadingZeros64(uint64_t{1} << 40), 23);
}

double Q(int32_t raw, int integer_bits) { return std::ldexp(raw, integer_bits - 31); }

TEST(FixedPointMath, ExactAnchors) {
  EXPECT_EQ(fx::ExpOnNegativeValues<5>(0), fx::kInt32Max);  // exp(0) = "1" in Q0
  EXPECT_EQ(fx::Logistic<4>(0), 1 << 30);                   // 0.5
  EXPECT_EQ(fx::Tanh<4>(0), 0);
  EXPECT_EQ(fx::One<2>(), 1 << 29);
  EXPECT_EQ((fx::ConstantPOT<0, -3>()), 1 << 28);  // 1/8 in Q0
  // Symmetries gemmlowp builds in exactly: logistic(-x) = 1 - logistic(x) (1 = INT32_MAX),
  // tanh(-x) = -tanh(x).
  for (int32_t x : {1, 1000, 1 << 20, 5 << 27, 7 << 27}) {
    EXPECT_EQ(fx::Logistic<4>(x) + fx::Logistic<4>(-x), fx::kInt32Max) << x;
    EXPECT_EQ(fx::Tanh<4>(-x), -fx::Tanh<4>(x)) << x;
  }
}

TEST(FixedPointMath, CloseToRealFunctions) {
  // exp on Q5.26 inputs, as softmax uses it. gemmlowp's 4th-order Taylor step on [-1/4, 0)
  // is accurate to ~2.5e-7 (x^5/120 at |x| = 1/8); these catch gross errors only, the
  // TFLite oracle test checks bit-exactness.
  for (double x : {-0.001, -0.25, -0.5, -1.0, -2.0, -3.7, -8.0, -15.9, -31.5}) {
    const auto raw = static_cast<int32_t>(std::lround(std::ldexp(x, 31 - 5)));
    EXPECT_NEAR(Q(fx::ExpOnNegativeValues<5>(raw), 0), std::exp(x), 3e-7) << x;
  }
  for (double x : {-7.9, -3.0, -1.0, -0.1, 0.1, 0.5, 1.0, 2.5, 7.9}) {
    const auto raw = static_cast<int32_t>(std::lround(std::ldexp(x, 31 - 4)));
    EXPECT_NEAR(Q(fx::Logistic<4>(raw), 0), 1.0 / (1.0 + std::exp(-x)), 3e-7) << x;
    EXPECT_NEAR(Q(fx::Tanh<4>(raw), 0), std::tanh(x), 6e-7) << x;
  }
  for (double x : {0.0, 0.1, 0.5, 0.9, 0.999}) {
    const auto raw = static_cast<int32_t>(std::lround(std::ldexp(x, 31)));
    EXPECT_NEAR(Q(fx::OneOverOnePlusXForXIn01(raw), 0), 1.0 / (1.0 + x), 2e-8) << x;
    EXPECT_NEAR(Q(fx::OneMinusXOverOnePlusXForXIn01(raw), 0), (1.0 - x) / (1.0 + x), 4e-8) << x;
  }
}

TEST(FixedPointMath, GetReciprocal) {
  // 1.0 in Q12.19 is 2^19: normalized exactly to 1, no extra bits, reciprocal ~1 in Q0.
  int bits = -1;
  EXPECT_NEAR(Q(fx::GetReciprocal(1 << 19, 12, &bits), 0), 1.0, 2e-9);
  EXPECT_EQ(bits, 0);
  // 3.0 -> normalized 1.5 with one bit over unit: 1/1.5 = 0.666..
  EXPECT_NEAR(Q(fx::GetReciprocal(3 << 19, 12, &bits), 0), 2.0 / 3.0, 2e-9);
  EXPECT_EQ(bits, 1);
}

}  // namespace
