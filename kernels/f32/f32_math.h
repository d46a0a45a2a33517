// The transcendental functions of the float fallback, in double, without libm (internal to
// kernels/f32). Each takes and returns a double; the kernels round the result to float32
// once. Only + - * / on doubles (IEEE: SSE2 on the host, libgcc's soft-float or the FPU on
// Cortex-M) and integer bit operations, in a fixed order: every build computes the same
// bits (compiled with -ffp-contract=off: no fused multiply-add). Series lengths are chosen
// for a relative error near 1e-15 on the float32 domain, far below float32's 6e-8 spacing,
// so the rounded results are float32's nearest value except in rare ties.
// Range notes: sin/cos reduce the argument by pi/2 in three parts (exact for |x| < 2^19,
// less accurate beyond); erf is +-1 for |x| >= 4 (its float32 value).
#ifndef TINYFORGE_KERNELS_F32_F32_MATH_H_
#define TINYFORGE_KERNELS_F32_F32_MATH_H_

#include <cstdint>

namespace tinyforge::kernels::f32 {

inline uint64_t Bits(double x) {
  uint64_t u;
  __builtin_memcpy(&u, &x, 8);
  return u;
}
inline double FromBits(uint64_t u) {
  double x;
  __builtin_memcpy(&x, &u, 8);
  return x;
}
inline bool IsNan(double x) { return x != x; }
inline double Inf() { return FromBits(0x7ff0000000000000ull); }
inline double Nan() { return FromBits(0x7ff8000000000000ull); }
inline bool SignBit(double x) { return (Bits(x) >> 63) != 0; }
inline double Abs(double x) { return FromBits(Bits(x) & 0x7fffffffffffffffull); }

constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2, upper 32 bits
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
constexpr double kPi = 3.14159265358979311600e+00;
constexpr double kPi2 = 1.57079632679489655800e+00;    // pi / 2
constexpr double kPi4 = 7.85398163397448278999e-01;    // pi / 4
// pi / 2 = kPio2A + kPio2B + kPio2C (33 bits each: q * kPio2A exact for q < 2^20).
constexpr double kPio2A = 1.57079632673412561417e+00;
constexpr double kPio2B = 6.07710050630396597660e-11;
constexpr double kPio2C = 2.02226624871116645580e-21;

// Nearest integer (ties away from zero) of |v| < 2^62; v itself beyond 2^52 (integral).
inline double RoundInt(double v) {
  if (Abs(v) >= 4503599627370496.0) return v;
  return static_cast<double>(static_cast<int64_t>(v < 0 ? v - 0.5 : v + 0.5));
}

// x * 2^k for any int k (the double range, stepwise so no factor overflows).
inline double Scale2(double x, int32_t k) {
  while (k > 1000) x *= FromBits(uint64_t{2023} << 52), k -= 1000;
  while (k < -1000) x *= FromBits(uint64_t{23} << 52), k += 1000;
  return x * FromBits(static_cast<uint64_t>(k + 1023) << 52);
}

// e^x: x = k ln2 + r, |r| <= ln2 / 2, e^r by its Taylor series to r^13.
inline double Exp(double x) {
  if (IsNan(x)) return x;
  if (x > 709.8) return Inf();
  if (x < -745.2) return 0.0;
  const double k = RoundInt(x / (kLn2Hi + kLn2Lo));
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double p = 1.0;
  for (int i = 13; i >= 1; --i) p = 1.0 + p * r / i;
  return Scale2(p, static_cast<int32_t>(k));
}

// ln x: x = 2^e m, m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(s), s = (m - 1) / (m + 1).
inline double Log(double x) {
  if (IsNan(x) || x < 0.0) return Nan();
  if (x == 0.0) return -Inf();
  if (x == Inf()) return x;
  int32_t e = 0;
  if (x < 2.2250738585072014e-308) x *= 18014398509481984.0, e = -54;  // subnormal: * 2^54
  const uint64_t u = Bits(x);
  e += static_cast<int32_t>((u >> 52) & 0x7ff) - 1023;
  double m = FromBits((u & 0x000fffffffffffffull) | (uint64_t{1023} << 52));
  if (m > 1.4142135623730951) m *= 0.5, ++e;
  const double s = (m - 1.0) / (m + 1.0);
  const double z = s * s;
  double t = 1.0 / 25.0;
  for (int n = 11; n >= 0; --n) t = 1.0 / (2 * n + 1) + z * t;
  return e * kLn2Hi + (e * kLn2Lo + 2.0 * s * t);
}

// sqrt x by Newton's iteration from a halved-exponent guess (converged to the last bit
// or two of a double: far below float32's spacing).
inline double Sqrt(double x) {
  if (IsNan(x) || x < 0.0) return Nan();
  if (x == 0.0 || x == Inf()) return x;
  int32_t e = 0;
  if (x < 2.2250738585072014e-308) x *= 18014398509481984.0, e = -27;  // * 2^54: sqrt * 2^27
  double y = FromBits((Bits(x) >> 1) + (uint64_t{1023} << 51));
  for (int i = 0; i < 6; ++i) y = 0.5 * (y + x / y);
  return Scale2(y, e);
}

// sin r and cos r for |r| <= pi/4 (Taylor series).
inline double SinSmall(double r) {
  const double z = r * r;
  double p = 1.0;
  for (int n = 10; n >= 1; --n) p = 1.0 - p * z / ((2 * n) * (2 * n + 1));
  return r * p;
}
inline double CosSmall(double r) {
  const double z = r * r;
  double p = 1.0;
  for (int n = 10; n >= 1; --n) p = 1.0 - p * z / ((2 * n - 1) * (2 * n));
  return p;
}

// sin x (cos = false) or cos x: x = q pi/2 + r, then the quadrant's function of r.
inline double SinCos(double x, bool cos) {
  if (IsNan(x) || Abs(x) == Inf()) return Nan();
  const double q = RoundInt(x * (2.0 / kPi));
  const double r = ((x - q * kPio2A) - q * kPio2B) - q * kPio2C;
  int32_t n = 0;
  if (Abs(q) < 4503599627370496.0) n = static_cast<int32_t>(static_cast<int64_t>(q) & 3);
  if (cos) n = (n + 1) & 3;
  switch (n) {
    case 0: return SinSmall(r);
    case 1: return CosSmall(r);
    case 2: return -SinSmall(r);
    default: return -CosSmall(r);
  }
}

// atan u for |u| <= tan(pi/8) (Taylor series).
inline double AtanSmall(double u) {
  const double z = u * u;
  double t = 1.0 / 45.0;
  for (int n = 21; n >= 0; --n) t = 1.0 / (2 * n + 1) - z * t;
  return u * t;
}

inline double Atan(double x) {
  if (IsNan(x)) return x;
  double a = Abs(x), base = 0.0, sign = 1.0;
  if (a > 1.0) a = 1.0 / a, base = kPi2, sign = -1.0;  // atan a = pi/2 - atan(1/a)
  double r = a > 0.41421356237309503 ? kPi4 + AtanSmall((a - 1.0) / (a + 1.0)) : AtanSmall(a);
  r = base + sign * r;
  return SignBit(x) ? -r : r;
}

// atan2(y, x) with C's special cases (signed zeros, infinities).
inline double Atan2(double y, double x) {
  if (IsNan(x) || IsNan(y)) return Nan();
  double a;
  if (y == 0.0) {
    a = SignBit(x) ? kPi : 0.0;
  } else if (Abs(x) == Inf() && Abs(y) == Inf()) {
    a = SignBit(x) ? 3.0 * kPi4 : kPi4;
  } else {
    a = Atan(Abs(y) / Abs(x));  // x == 0: atan(inf) = pi/2
    if (SignBit(x)) a = kPi - a;
  }
  return SignBit(y) ? -a : a;
}

// erf x: its Taylor series 2/sqrt(pi) sum (-1)^n x^(2n+1) / (n! (2n+1)) for |x| < 4 (the
// alternating terms cost up to 6 of double's 16 digits at |x| = 4); +-1 beyond, where
// 1 - erf(x) < 1.6e-8 rounds to float32 1.
inline double Erf(double x) {
  if (IsNan(x)) return x;
  const double a = Abs(x);
  if (a >= 4.0) return SignBit(x) ? -1.0 : 1.0;
  const double z = a * a;
  double term = a, sum = a;
  for (int n = 1; n < 100; ++n) {
    term *= -z / n;
    const double add = term / (2 * n + 1);
    sum += add;
    if (Abs(add) < 1e-17 * Abs(sum)) break;
  }
  const double r = sum * 1.12837916709551257390;  // 2 / sqrt(pi)
  return SignBit(x) ? -r : r;
}

inline double Tanh(double x) {
  if (IsNan(x)) return x;
  const double a = Abs(x);
  double r;
  if (a > 20.0) {
    r = 1.0;
  } else if (a < 1e-4) {
    r = a - a * a * a / 3.0;
  } else {
    const double e = Exp(2.0 * a);
    r = (e - 1.0) / (e + 1.0);
  }
  return SignBit(x) ? -r : r;
}

inline double Sigmoid(double x) { return IsNan(x) ? x : 1.0 / (1.0 + Exp(-x)); }

// Whether x (finite) is an integer, and then whether it is odd.
inline bool IsInteger(double x) { return Abs(x) >= 4503599627370496.0 || RoundInt(x) == x; }
inline bool IsOdd(double x) {
  return Abs(x) < 4503599627370496.0 && (static_cast<int64_t>(x) & 1) != 0;
}

// x^y as C's pow (exp(y ln|x|), the sign of a negative x for an integer y).
inline double Pow(double x, double y) {
  if (y == 0.0 || x == 1.0) return 1.0;
  if (IsNan(x) || IsNan(y)) return Nan();
  if (y == 1.0) return x;
  if (y == 2.0) return x * x;
  const bool y_int = Abs(y) == Inf() || IsInteger(y);
  if (x == 0.0) {
    const bool neg = SignBit(x) && y_int && Abs(y) != Inf() && IsOdd(y);
    const double r = y > 0.0 ? 0.0 : Inf();
    return neg ? -r : r;
  }
  if (x < 0.0) {
    if (x == -1.0 && Abs(y) == Inf()) return 1.0;
    if (!y_int) return Nan();
    const double r = Exp(y * Log(-x));
    return Abs(y) != Inf() && IsOdd(y) ? -r : r;
  }
  return Exp(y * Log(x));
}

}  // namespace tinyforge::kernels::f32

#endif  // TINYFORGE_KERNELS_F32_F32_MATH_H_
