// Fixed-point primitives shared by every int8 kernel, bit-exact with TensorFlow Lite
// (Micro)'s reference kernels built with DOUBLE rounding (TFLITE_SINGLE_ROUNDING not
// defined), i.e. gemmlowp's VQRDMULH-style high multiply followed by a rounding shift.
//
// Freestanding C++17: only <cstdint>; no libm, no exceptions, no heap.
//
// Conventions
//   - A "quantized multiplier" is a pair (multiplier, shift) encoding the real number
//     multiplier * 2^(shift - 31), with multiplier in [2^30, 2^31 - 1] (Q0.31, >= 0.5)
//     or 0, and shift in [-31, 30]. shift > 0 is a left shift (value >= 1).
//   - Signed overflow that TFLite leaves as undefined behaviour (it relies on two's
//     complement wrap-around) is computed here through uint32_t, so results match what
//     TFLite produces on every real compiler and sanitizers stay quiet.
#ifndef TINYFORGE_KERNELS_COMMON_FIXED_POINT_H_
#define TINYFORGE_KERNELS_COMMON_FIXED_POINT_H_

#include <cstdint>

#include "kernels/common/rounding.h"

namespace tinyforge::fx {

constexpr int32_t kInt32Min = -2147483647 - 1;
constexpr int32_t kInt32Max = 2147483647;

// Two's-complement wrap-around arithmetic (defined behaviour).
constexpr int32_t WrapAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
constexpr int32_t WrapSub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
constexpr int32_t WrapNeg(int32_t a) { return WrapSub(0, a); }
constexpr int32_t WrapMul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}
// a * 2^shift for shift in [0, 31], wrapping like TFLite's `x * (1 << shift)`.
constexpr int32_t WrapShiftLeft(int32_t a, int shift) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) << shift);
}

constexpr int32_t Min(int32_t a, int32_t b) { return a < b ? a : b; }
constexpr int32_t Max(int32_t a, int32_t b) { return a > b ? a : b; }
constexpr int32_t Clamp(int32_t x, int32_t lo, int32_t hi) { return Min(Max(x, lo), hi); }

// round(a * b / 2^31), ties away from zero; saturates the single overflow case
// (-2^31 * -2^31) to INT32_MAX. gemmlowp::SaturatingRoundingDoublingHighMul (VQRDMULH).
constexpr int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == kInt32Min && b == kInt32Min) return kInt32Max;
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  // C++ division truncates toward zero, as gemmlowp's does.
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

// round(x / 2^exponent), ties away from zero, exponent in [0, 31].
// gemmlowp::RoundingDivideByPOT. Relies on arithmetic right shift of negative values
// (guaranteed by C++20, and by every compiler we target in C++17 mode).
constexpr int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// x * multiplier * 2^(shift - 31) with TFLite's double rounding:
//   RoundingDivideByPOT(SRDHM(x * 2^max(shift, 0), multiplier), max(-shift, 0)).
// tflite::MultiplyByQuantizedMultiplier(int32_t, int32_t, int), non-single-rounding.
constexpr int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  return RoundingDivideByPOT(
      SaturatingRoundingDoublingHighMul(WrapShiftLeft(x, left_shift), multiplier), right_shift);
}

// x * multiplier * 2^(shift - 31) with ONE rounding, half up (towards +inf):
//   (x * multiplier + 2^(30 - shift)) >> (31 - shift) in 64 bits.
// tflite::MultiplyByQuantizedMultiplier built with TFLITE_SINGLE_ROUNDING. Closer to
// PyTorch's float requantization than the double-rounding form (docs/numerics.md).
constexpr int32_t MultiplyByQuantizedMultiplierSingleRounding(int32_t x, int32_t multiplier,
                                                              int shift) {
  const int total_shift = 31 - shift;  // in [1, 62]
  const int64_t round = int64_t{1} << (total_shift - 1);
  return static_cast<int32_t>((static_cast<int64_t>(x) * multiplier + round) >> total_shift);
}

// The requantization every kernel applies, in the rounding mode its parameters carry
// (`rounding`: TF_ROUNDING_DOUBLE or TF_ROUNDING_SINGLE, kernels/common/rounding.h).
constexpr int32_t Requantize(int32_t x, int32_t multiplier, int shift, int32_t rounding) {
  return rounding == TF_ROUNDING_SINGLE
             ? MultiplyByQuantizedMultiplierSingleRounding(x, multiplier, shift)
             : MultiplyByQuantizedMultiplier(x, multiplier, shift);
}

// ADD's form: SmallerThanOneExp under double rounding, the plain single-rounding multiply
// under single rounding (TFLite's definition with TFLITE_SINGLE_ROUNDING).
constexpr int32_t RequantizeSmallerThanOne(int32_t x, int32_t multiplier, int shift,
                                           int32_t rounding);

// shift <= 0 variant used by ADD (tflite::MultiplyByQuantizedMultiplierSmallerThanOneExp).
constexpr int32_t MultiplyByQuantizedMultiplierSmallerThanOneExp(int32_t x, int32_t multiplier,
                                                                 int shift) {
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x, multiplier), -shift);
}

constexpr int32_t RequantizeSmallerThanOne(int32_t x, int32_t multiplier, int shift,
                                           int32_t rounding) {
  return rounding == TF_ROUNDING_SINGLE
             ? MultiplyByQuantizedMultiplierSingleRounding(x, multiplier, shift)
             : MultiplyByQuantizedMultiplierSmallerThanOneExp(x, multiplier, shift);
}

// shift >= 0 variant used by SOFTMAX (tflite::MultiplyByQuantizedMultiplierGreaterThanOne).
constexpr int32_t MultiplyByQuantizedMultiplierGreaterThanOne(int32_t x, int32_t multiplier,
                                                              int left_shift) {
  return SaturatingRoundingDoublingHighMul(WrapShiftLeft(x, left_shift), multiplier);
}

// x * 2^Exponent, saturating for Exponent > 0, rounding (ties away) for Exponent < 0.
// gemmlowp::SaturatingRoundingMultiplyByPOT<Exponent>.
template <int Exponent>
constexpr int32_t SaturatingRoundingMultiplyByPOT(int32_t x) {
  static_assert(Exponent > -32 && Exponent < 32, "exponent out of range");
  if constexpr (Exponent == 0) {
    return x;
  } else if constexpr (Exponent > 0) {
    constexpr int32_t threshold = static_cast<int32_t>((int64_t{1} << (31 - Exponent)) - 1);
    if (x > threshold) return kInt32Max;
    if (x < -threshold) return kInt32Min;
    return WrapShiftLeft(x, Exponent);
  } else {
    return RoundingDivideByPOT(x, -Exponent);
  }
}

// Number of leading zero bits of x (32 for x == 0).
constexpr int CountLeadingZeros32(uint32_t x) {
  if (x == 0) return 32;
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_clz(x);
#else
  int n = 0;
  while ((x & 0x80000000u) == 0) {
    x <<= 1;
    ++n;
  }
  return n;
#endif
}

// Number of leading zero bits of x (64 for x == 0).
constexpr int CountLeadingZeros64(uint64_t x) {
  if (x == 0) return 64;
  const uint32_t hi = static_cast<uint32_t>(x >> 32);
  return hi != 0 ? CountLeadingZeros32(hi) : 32 + CountLeadingZeros32(static_cast<uint32_t>(x));
}

}  // namespace tinyforge::fx

#endif  // TINYFORGE_KERNELS_COMMON_FIXED_POINT_H_
