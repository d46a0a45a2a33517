// The softmax input multiplier for beta = 1: the one definition the emitter (whether a
// softmax needs the BETA flag) and the softmax validator (runtime/ops/softmax.cc) both use.
// It equals the compiler's MakeSoftmaxParams (compiler/quant/params_activation.cc, TFLite's
// PreprocessSoftmaxScaling with 5 integer bits) for beta = 1: real = min(scale * 2^26,
// 2^31 - 1), then frexp and round half away to 31 bits. scale * 2^26 is exact in double and
// its mantissa has 24 bits, so no rounding is needed and the result is read off the float's
// bits (no libm, no double arithmetic: freestanding). Freestanding C++17.
#ifndef TINYFORGE_RUNTIME_SOFTMAX_SCALE_H_
#define TINYFORGE_RUNTIME_SOFTMAX_SCALE_H_

#include <cstdint>
#include <cstring>

namespace tinyforge::rt {

// False when the scale has no such multiplier (not a normal float > 2^-26: the compiler
// refuses those softmaxes as "beta * input scale too small").
inline bool SoftmaxUnitBetaMultiplier(float scale, int32_t* multiplier, int32_t* shift) {
  uint32_t bits = 0;
  std::memcpy(&bits, &scale, sizeof bits);
  const int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xffu);
  if ((bits >> 31) != 0 || exponent == 0 || exponent == 0xff) return false;
  // scale = (2^23 + mantissa) / 2^24 * 2^(exponent - 126), so frexp(scale * 2^26) has this
  // exponent and a 31-bit fraction (2^23 + mantissa) << 7.
  const int32_t e = exponent - 126 + 26;
  if (e <= 1 && !(e == 1 && (bits & 0x7fffffu) != 0)) return false;  // real <= 1
  if (e > 31) {  // real >= 2^31: capped at 2^31 - 1 = (2^31 - 1) / 2^31 * 2^31
    *multiplier = 0x7fffffff;
    *shift = 31;
    return true;
  }
  *multiplier = static_cast<int32_t>(((bits & 0x7fffffu) | 0x800000u) << 7);
  *shift = e;
  return true;
}

}  // namespace tinyforge::rt

#endif  // TINYFORGE_RUNTIME_SOFTMAX_SCALE_H_
