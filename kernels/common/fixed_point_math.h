// Transcendental functions in 32-bit fixed point for SOFTMAX, LOGISTIC and TANH, bit-exact
// with gemmlowp's fixedpoint.h (which TFLite Micro's int8 reference kernels call).
//
// A value in format Q<I> (I "integer bits", sign bit not counted) is an int32_t raw
// integer r representing r / 2^(31 - I); its range is [-2^I, 2^I). Q0 spans [-1, 1) and
// its "one" is INT32_MAX. Functions take and return raw integers; the formats are in the
// names and template parameters. Freestanding C++17.
#ifndef TINYFORGE_KERNELS_COMMON_FIXED_POINT_MATH_H_
#define TINYFORGE_KERNELS_COMMON_FIXED_POINT_MATH_H_

#include <cstdint>

#include "kernels/common/fixed_point.h"

namespace tinyforge::fx {

// Raw value of 2^Exponent in Q<IntegerBits> (gemmlowp FixedPoint::ConstantPOT).
template <int IntegerBits, int Exponent>
constexpr int32_t ConstantPOT() {
  constexpr int kOffset = 31 - IntegerBits + Exponent;
  static_assert(kOffset >= 0 && kOffset < 31, "not representable");
  return int32_t{1} << kOffset;
}

// Raw value of 1.0 in Q<IntegerBits> (INT32_MAX in Q0).
template <int IntegerBits>
constexpr int32_t One() {
  if constexpr (IntegerBits == 0) {
    return kInt32Max;
  } else {
    return int32_t{1} << (31 - IntegerBits);
  }
}

// Converts Q<Src> to Q<Dst> (gemmlowp::Rescale): saturating when gaining integer bits
// is not possible, rounding when losing fractional bits.
template <int Dst, int Src>
constexpr int32_t Rescale(int32_t x) {
  return SaturatingRoundingMultiplyByPOT<Src - Dst>(x);
}

// round((a + b) / 2), ties away from zero (gemmlowp::RoundingHalfSum).
constexpr int32_t RoundingHalfSum(int32_t a, int32_t b) {
  const int64_t sum = static_cast<int64_t>(a) + static_cast<int64_t>(b);
  const int64_t sign = sum >= 0 ? 1 : -1;
  return static_cast<int32_t>((sum + sign) / 2);
}

// exp(a) for a in [-1/4, 0), a and result in Q0. Taylor expansion around -1/8.
constexpr int32_t ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(int32_t a) {
  constexpr int32_t kExpMinusOneEighth = 1895147668;  // exp(-1/8) in Q0
  constexpr int32_t kOneThird = 715827883;            // 1/3 in Q0
  const int32_t x = WrapAdd(a, ConstantPOT<0, -3>());
  const int32_t x2 = SaturatingRoundingDoublingHighMul(x, x);
  const int32_t x3 = SaturatingRoundingDoublingHighMul(x2, x);
  const int32_t x4 = SaturatingRoundingDoublingHighMul(x2, x2);
  const int32_t x4_over_4 = SaturatingRoundingMultiplyByPOT<-2>(x4);
  const int32_t poly = SaturatingRoundingMultiplyByPOT<-1>(
      WrapAdd(SaturatingRoundingDoublingHighMul(WrapAdd(x4_over_4, x3), kOneThird), x2));
  return WrapAdd(kExpMinusOneEighth,
                 SaturatingRoundingDoublingHighMul(kExpMinusOneEighth, WrapAdd(x, poly)));
}

// exp(a) for a <= 0; a in Q<IntegerBits>, result in Q0 (gemmlowp::exp_on_negative_values).
template <int IntegerBits>
constexpr int32_t ExpOnNegativeValues(int32_t a) {
  constexpr int kFractionalBits = 31 - IntegerBits;
  constexpr int32_t kOneQuarter = ConstantPOT<IntegerBits, -2>();
  constexpr int32_t kMask = kOneQuarter - 1;
  const int32_t a_mod_quarter_minus_one_quarter = WrapSub(a & kMask, kOneQuarter);
  int32_t result = ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(
      Rescale<0, IntegerBits>(a_mod_quarter_minus_one_quarter));
  const int32_t remainder = WrapSub(a_mod_quarter_minus_one_quarter, a);

  // Multiply in exp(-2^k) for every bit k of the remainder (k = -2 .. 4 as fits).
  auto barrel = [&](int exponent, int32_t exp_of_minus_pot) {
    if (IntegerBits > exponent) {
      const int shift = kFractionalBits + exponent;
      if (remainder & (int32_t{1} << shift)) {
        result = SaturatingRoundingDoublingHighMul(result, exp_of_minus_pot);
      }
    }
  };
  barrel(-2, 1672461947);  // exp(-1/4)
  barrel(-1, 1302514674);  // exp(-1/2)
  barrel(+0, 790015084);   // exp(-1)
  barrel(+1, 290630308);   // exp(-2)
  barrel(+2, 39332535);    // exp(-4)
  barrel(+3, 720401);      // exp(-8)
  barrel(+4, 242);         // exp(-16)

  if constexpr (IntegerBits > 5) {
    constexpr int32_t kClamp = -(int32_t{1} << (36 - IntegerBits));  // -32 in Q<IntegerBits>
    if (a < kClamp) result = 0;
  }
  if (a == 0) result = One<0>();
  return result;
}

// Newton-Raphson reciprocal shared by the two functions below: returns x ~ 1 / half_denom
// in Q2, for half_denom in [0.5, 1) Q0 (three iterations from the 48/17 - 32/17 guess).
constexpr int32_t NewtonRaphsonReciprocalQ2(int32_t half_denominator) {
  constexpr int32_t k48Over17 = 1515870810;      // Q2
  constexpr int32_t kNeg32Over17 = -1010580540;  // Q2
  int32_t x = WrapAdd(k48Over17, SaturatingRoundingDoublingHighMul(half_denominator, kNeg32Over17));
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = SaturatingRoundingDoublingHighMul(half_denominator, x);
    const int32_t one_minus = WrapSub(One<2>(), half_denominator_times_x);
    x = WrapAdd(x, Rescale<2, 4>(SaturatingRoundingDoublingHighMul(x, one_minus)));
  }
  return x;
}

// 1 / (1 + a) for a in [0, 1); Q0 in and out (gemmlowp::one_over_one_plus_x_for_x_in_0_1).
constexpr int32_t OneOverOnePlusXForXIn01(int32_t a) {
  const int32_t x = NewtonRaphsonReciprocalQ2(RoundingHalfSum(a, One<0>()));
  // ExactMulByPot<-1>: reinterpret Q2 as Q1 (halves the value), then Q1 -> Q0.
  return Rescale<0, 1>(x);
}

// (1 - a) / (1 + a) for a in [0, 1); Q0 in and out
// (gemmlowp::one_minus_x_over_one_plus_x_for_x_in_0_1).
constexpr int32_t OneMinusXOverOnePlusXForXIn01(int32_t a) {
  const int32_t x = NewtonRaphsonReciprocalQ2(RoundingHalfSum(a, One<0>()));
  return Rescale<0, 2>(WrapSub(x, One<2>()));
}

// 1 / (1 + exp(-a)); a in Q<IntegerBits>, result in Q0 (gemmlowp::logistic).
template <int IntegerBits>
constexpr int32_t Logistic(int32_t a) {
  if (a == 0) return int32_t{1} << 30;  // 0.5
  const bool positive = a > 0;
  const int32_t abs_a = positive ? a : WrapNeg(a);
  const int32_t result_if_positive =
      OneOverOnePlusXForXIn01(ExpOnNegativeValues<IntegerBits>(WrapNeg(abs_a)));
  return positive ? result_if_positive : WrapSub(One<0>(), result_if_positive);
}

// tanh(a); a in Q<IntegerBits>, result in Q0 (gemmlowp::tanh).
template <int IntegerBits>
constexpr int32_t Tanh(int32_t a) {
  if (a == 0) return 0;
  const bool negative = a < 0;
  const int32_t n = negative ? a : WrapNeg(a);  // n < 0
  // -tanh(n) = (1 - exp(2n)) / (1 + exp(2n)); 2n is n reinterpreted with one more
  // integer bit (gemmlowp ExactMulByPot<1>).
  const int32_t t = OneMinusXOverOnePlusXForXIn01(ExpOnNegativeValues<IntegerBits + 1>(n));
  return negative ? WrapNeg(t) : t;
}

// 1 / x for x > 0 in Q<IntegerDigits>: returns the Q0 reciprocal of x normalized to
// [1, 2), and the power of two to divide by (tflite::GetReciprocal).
constexpr int32_t GetReciprocal(int32_t x, int integer_digits, int* num_bits_over_unit) {
  const int headroom_plus_one = CountLeadingZeros32(static_cast<uint32_t>(x));
  *num_bits_over_unit = integer_digits - headroom_plus_one;
  const int32_t shifted_sum_minus_one =
      static_cast<int32_t>((static_cast<uint32_t>(x) << headroom_plus_one) - (uint32_t{1} << 31));
  return OneOverOnePlusXForXIn01(shifted_sum_minus_one);
}

// TFLite Micro's int8 LOGISTIC / TANH loop (reference_integer_ops::Logistic / Tanh): inputs
// at or beyond +-range_radius from the zero point saturate; the others go to Q4.27 through
// (multiplier, left_shift), through `f` (Q0.31 out), then to int8 with `out_fraction_bits`
// fractional bits plus `out_offset`. P has size, input_zero_point, input_range_radius,
// input_multiplier and input_left_shift.
template <int32_t (*f)(int32_t), int out_fraction_bits, int32_t out_offset, class P>
inline void SaturatingQ4Activation(const P& p, const int8_t* input, int8_t* output) {
  for (int32_t i = 0; i < p.size; ++i) {
    const int32_t d = input[i] - p.input_zero_point;
    int32_t y;
    if (d <= -p.input_range_radius) {
      y = -128;
    } else if (d >= p.input_range_radius) {
      y = 127;
    } else {
      const int32_t x_q4 = MultiplyByQuantizedMultiplier(d, p.input_multiplier, p.input_left_shift);
      y = Clamp(RoundingDivideByPOT(f(x_q4), 31 - out_fraction_bits) + out_offset, -128, 127);
    }
    output[i] = static_cast<int8_t>(y);
  }
}

}  // namespace tinyforge::fx

#endif  // TINYFORGE_KERNELS_COMMON_FIXED_POINT_MATH_H_
