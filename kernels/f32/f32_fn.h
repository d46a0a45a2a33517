// The float32 value of each function of f32_fns.def (internal to kernels/f32; the kernels'
// one switch). + - * / and the comparisons in float32 as PyTorch; the rest in double
// (f32_math.h), rounded to float32 once.
#ifndef TINYFORGE_KERNELS_F32_F32_FN_H_
#define TINYFORGE_KERNELS_F32_F32_FN_H_

#include "kernels/f32/f32.h"
#include "kernels/f32/f32_math.h"

namespace tinyforge::kernels::f32 {

inline float F(double v) { return static_cast<float>(v); }

// min(max(v, 0), 6) with NaN passed through (PyTorch's hardswish / hardsigmoid).
inline float Clamp6(float v) { return v != v ? v : v < 0.0f ? 0.0f : v > 6.0f ? 6.0f : v; }

// log(1 + e^x) without losing e^x where it is below double's epsilon (a series there).
inline double Log1pExp(double x) {
  const double t = Exp(x);
  return t < 1e-5 ? t * (1.0 - t * (0.5 - t / 3.0)) : Log(1.0 + t);
}

inline float Unary(int32_t fn, float x) {
  const double v = x;
  switch (fn) {
    case kF32Neg: return -x;
    case kF32Abs: return F(Abs(v));
    case kF32Sqrt: return F(Sqrt(v));
    case kF32Rsqrt: return F(1.0 / Sqrt(v));
    case kF32Reciprocal: return 1.0f / x;
    case kF32Exp: return F(Exp(v));
    case kF32Log: return F(Log(v));
    case kF32Sin: return F(SinCos(v, false));
    case kF32Cos: return F(SinCos(v, true));
    case kF32Atan: return F(Atan(v));
    case kF32Erf: return F(Erf(v));
    case kF32Tanh: return F(Tanh(v));
    case kF32Sigmoid: return F(Sigmoid(v));
    // PyTorch's float32 steps (aten hardswish / hardsigmoid), so results match it exactly.
    case kF32Hardswish: return x * Clamp6(x + 3.0f) / 6.0f;
    case kF32Hardsigmoid: return Clamp6(x + 3.0f) / 6.0f;
    case kF32Silu: return F(v * Sigmoid(v));
    case kF32Gelu: return F(0.5 * v * (1.0 + Erf(v * 0.70710678118654752440)));
    case kF32GeluTanh:
      return F(0.5 * v * (1.0 + Tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v))));
    case kF32Mish: return F(v * Tanh(Log1pExp(v)));
    case kF32LogSigmoid: return F((v < 0.0 ? v : 0.0) - Log1pExp(-Abs(v)));
    // Near 0 by their series (1 + v would drop v's low bits), elsewhere in double.
    case kF32Log1p: return F(Abs(v) < 1e-5 ? v * (1.0 - v * (0.5 - v / 3.0)) : Log(1.0 + v));
    case kF32Expm1: return F(Abs(v) < 1e-5 ? v * (1.0 + v * (0.5 + v / 6.0)) : Exp(v) - 1.0);
    default: return x;  // (the validator admits no other code)
  }
}

inline float Binary(int32_t fn, float a, float b) {
  switch (fn) {
    case kF32Add: return a + b;
    case kF32Sub: return a - b;
    case kF32Mul: return a * b;
    case kF32Div: return a / b;
    case kF32Pow: return F(Pow(a, b));
    case kF32Atan2: return F(Atan2(a, b));
    // torch.maximum / minimum propagate NaN.
    case kF32Maximum: return a != a || b != b ? F(Nan()) : (a > b ? a : b);
    case kF32Minimum: return a != a || b != b ? F(Nan()) : (a < b ? a : b);
    case kF32Prelu: return a >= 0.0f || a != a ? a : a * b;
    case kF32Elu: return a > 0.0f || a != a ? a : F((Exp(a) - 1.0) * b);
    // PyTorch's default threshold (fold-float takes no other).
    case kF32Softplus: return a * b > 20.0f || a != a ? a : F(Log1pExp(double{a} * b) / b);
    default: return a;
  }
}

}  // namespace tinyforge::kernels::f32

#endif  // TINYFORGE_KERNELS_F32_F32_FN_H_
