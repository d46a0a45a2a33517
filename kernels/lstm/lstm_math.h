// gemmlowp's fixed-point functions on int16 (FixedPoint<int16_t, I>), which TensorFlow Lite's
// integer LSTM applies to its gates and cell state (portable tensor_utils ApplySigmoid /
// ApplyTanh). Same algorithms as kernels/common/fixed_point_math.h (the int32 forms), with
// int16 wrap-around and saturation, constants rounded from their int32 values by 2^16
// (gemmlowp RescaleConstantInitializer), and the saturating final add of the exp polynomial
// (gemmlowp AddSaturatingIf16Bit). A value in Q<I> is a raw int16 r meaning r / 2^(15 - I).
// Freestanding C++17.
#ifndef TINYFORGE_KERNELS_LSTM_LSTM_MATH_H_
#define TINYFORGE_KERNELS_LSTM_LSTM_MATH_H_

#include <cstdint>

#include "kernels/common/fixed_point.h"

namespace tinyforge::fx16 {

constexpr int16_t Wrap(int32_t v) {
  return static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint32_t>(v)));
}
constexpr int16_t Sat(int32_t v) { return static_cast<int16_t>(fx::Clamp(v, -32768, 32767)); }
constexpr int16_t Add(int16_t a, int16_t b) { return Wrap(int32_t{a} + b); }
constexpr int16_t Sub(int16_t a, int16_t b) { return Wrap(int32_t{a} - b); }
constexpr int16_t Neg(int16_t a) { return Wrap(-int32_t{a}); }

// round(a * b / 2^15), ties away from zero; -2^15 * -2^15 saturates.
constexpr int16_t SaturatingRoundingDoublingHighMul(int16_t a, int16_t b) {
  if (a == -32768 && b == -32768) return 32767;
  const int32_t ab = int32_t{a} * b;
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

constexpr int16_t RoundingDivideByPOT(int16_t x, int exponent) {
  return static_cast<int16_t>(fx::RoundingDivideByPOT(x, exponent));
}

template <int Exponent>
constexpr int16_t SaturatingRoundingMultiplyByPOT(int16_t x) {
  if constexpr (Exponent == 0) {
    return x;
  } else if constexpr (Exponent > 0) {
    constexpr int32_t threshold = (1 << (15 - Exponent)) - 1;
    if (x > threshold) return 32767;
    if (x < -threshold) return -32768;
    return Wrap(int32_t{x} * (1 << Exponent));
  } else {
    return RoundingDivideByPOT(x, -Exponent);
  }
}

// Q<Src> -> Q<Dst>.
template <int Dst, int Src>
constexpr int16_t Rescale(int16_t x) {
  return SaturatingRoundingMultiplyByPOT<Src - Dst>(x);
}

// An int32 gemmlowp constant in int16.
constexpr int16_t Constant(int32_t raw32) {
  return static_cast<int16_t>(fx::RoundingDivideByPOT(raw32, 16));
}

template <int IntegerBits, int Exponent>
constexpr int16_t ConstantPOT() {
  constexpr int kOffset = 15 - IntegerBits + Exponent;
  static_assert(kOffset >= 0 && kOffset < 15, "not representable");
  return static_cast<int16_t>(1 << kOffset);
}

template <int IntegerBits>
constexpr int16_t One() {
  if constexpr (IntegerBits == 0) {
    return 32767;
  } else {
    return static_cast<int16_t>(1 << (15 - IntegerBits));
  }
}

constexpr int16_t RoundingHalfSum(int16_t a, int16_t b) {
  const int32_t sum = int32_t{a} + b;
  const int32_t sign = sum >= 0 ? 1 : -1;
  return static_cast<int16_t>((sum + sign) / 2);
}

// exp(a) for a in [-1/4, 0), Q0 in and out.
constexpr int16_t ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(int16_t a) {
  constexpr int16_t kExpMinusOneEighth = Constant(1895147668);
  constexpr int16_t kOneThird = Constant(715827883);
  const int16_t x = Add(a, ConstantPOT<0, -3>());
  const int16_t x2 = SaturatingRoundingDoublingHighMul(x, x);
  const int16_t x3 = SaturatingRoundingDoublingHighMul(x2, x);
  const int16_t x4 = SaturatingRoundingDoublingHighMul(x2, x2);
  const int16_t x4_over_4 = SaturatingRoundingMultiplyByPOT<-2>(x4);
  const int16_t poly = SaturatingRoundingMultiplyByPOT<-1>(
      Add(SaturatingRoundingDoublingHighMul(Add(x4_over_4, x3), kOneThird), x2));
  return Sat(int32_t{kExpMinusOneEighth} +
             SaturatingRoundingDoublingHighMul(kExpMinusOneEighth, Add(x, poly)));
}

// exp(a) for a <= 0; a in Q<IntegerBits>, result in Q0.
template <int IntegerBits>
constexpr int16_t ExpOnNegativeValues(int16_t a) {
  constexpr int kFractionalBits = 15 - IntegerBits;
  constexpr int16_t kOneQuarter = ConstantPOT<IntegerBits, -2>();
  constexpr int16_t kMask = static_cast<int16_t>(kOneQuarter - 1);
  const int16_t a_mod_quarter_minus_one_quarter = Sub(static_cast<int16_t>(a & kMask), kOneQuarter);
  int16_t result = ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(
      Rescale<0, IntegerBits>(a_mod_quarter_minus_one_quarter));
  const int16_t remainder = Sub(a_mod_quarter_minus_one_quarter, a);
  auto barrel = [&](int exponent, int32_t exp_of_minus_pot) {
    if (IntegerBits > exponent) {
      const int shift = kFractionalBits + exponent;
      if (remainder & (1 << shift)) {
        result = SaturatingRoundingDoublingHighMul(result, Constant(exp_of_minus_pot));
      }
    }
  };
  barrel(-2, 1672461947);
  barrel(-1, 1302514674);
  barrel(+0, 790015084);
  barrel(+1, 290630308);
  barrel(+2, 39332535);
  barrel(+3, 720401);
  barrel(+4, 242);
  if constexpr (IntegerBits > 5) {
    constexpr int16_t kClamp = Constant(-(int32_t{1} << (36 - IntegerBits)));  // -32
    if (a < kClamp) result = 0;
  }
  if (a == 0) result = One<0>();
  return result;
}

constexpr int16_t NewtonRaphsonReciprocalQ2(int16_t half_denominator) {
  constexpr int16_t k48Over17 = Constant(1515870810);
  constexpr int16_t kNeg32Over17 = Constant(-1010580540);
  int16_t x = Add(k48Over17, SaturatingRoundingDoublingHighMul(half_denominator, kNeg32Over17));
  for (int i = 0; i < 3; ++i) {
    const int16_t hx = SaturatingRoundingDoublingHighMul(half_denominator, x);
    const int16_t one_minus = Sub(One<2>(), hx);
    x = Add(x, Rescale<2, 4>(SaturatingRoundingDoublingHighMul(x, one_minus)));
  }
  return x;
}

constexpr int16_t OneOverOnePlusXForXIn01(int16_t a) {
  return Rescale<0, 1>(NewtonRaphsonReciprocalQ2(RoundingHalfSum(a, One<0>())));
}

constexpr int16_t OneMinusXOverOnePlusXForXIn01(int16_t a) {
  const int16_t x = NewtonRaphsonReciprocalQ2(RoundingHalfSum(a, One<0>()));
  return Rescale<0, 2>(Sub(x, One<2>()));
}

// 1 / (1 + exp(-a)); a in Q<IntegerBits>, result in Q0.
template <int IntegerBits>
constexpr int16_t Logistic(int16_t a) {
  if (a == 0) return Constant(1 << 30);
  const bool positive = a > 0;
  const int16_t abs_a = positive ? a : Neg(a);
  const int16_t r = OneOverOnePlusXForXIn01(ExpOnNegativeValues<IntegerBits>(Neg(abs_a)));
  return positive ? r : Sub(One<0>(), r);
}

// tanh(a); a in Q<IntegerBits>, result in Q0.
template <int IntegerBits>
constexpr int16_t Tanh(int16_t a) {
  if (a == 0) return 0;
  const bool negative = a < 0;
  const int16_t n = negative ? a : Neg(a);
  const int16_t t = OneMinusXOverOnePlusXForXIn01(ExpOnNegativeValues<IntegerBits + 1>(n));
  return negative ? Neg(t) : t;
}

// tanh of a Q<integer_bits> value, integer_bits in [0, 6] (TFLite's ApplyTanh range).
inline int16_t TanhQ(int integer_bits, int16_t a) {
  switch (integer_bits) {
    case 0: return Tanh<0>(a);
    case 1: return Tanh<1>(a);
    case 2: return Tanh<2>(a);
    case 3: return Tanh<3>(a);
    case 4: return Tanh<4>(a);
    case 5: return Tanh<5>(a);
    default: return Tanh<6>(a);
  }
}

}  // namespace tinyforge::fx16

#endif  // TINYFORGE_KERNELS_LSTM_LSTM_MATH_H_
