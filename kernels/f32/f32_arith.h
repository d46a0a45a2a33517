// The arithmetic of the float model layers (f32_conv, f32_dwconv, f32_fc, f32_avgpool;
// docs/numerics.md "Float models", docs/decisions.md 55): IEEE float32 under Arm's "standard
// FPSCR value", the mode Helium (MVE) floating point always computes in:
//   - flush to zero: a subnormal input counts as a zero of its sign, and a result whose exact
//     value is nonzero but below FLT_MIN in magnitude (tininess before rounding) is a zero of
//     its sign;
//   - default NaN: every NaN result is 0x7fc00000;
//   - round to nearest even; no fused multiply-add (-ffp-contract=off).
// Measured under QEMU (an547, an386): MVE VMUL / VADD flush and give the default NaN whatever
// FPSCR holds; the scalar FPU does the same with FPSCR.FZ = 1, DN = 1.
//
// So on a core with a single-precision FPU the kernels compute with plain float operators
// inside one StandardFpscr scope per call (FZ and DN set, round to nearest, restored at the
// end), and MVE-F variants use vector instructions for the same sums. Elsewhere (the host,
// soft-float M0/M3) Mul / Add / Div emulate the mode: the inputs are flushed by their bits,
// the IEEE result is flushed when it is below FLT_MIN; a result of exactly FLT_MIN can be the
// rounding of an exact value below it (tiny before rounding), which for products and
// quotients is decided in double (a float product is exact in double; FLT_MIN * count is
// exact). A sum of two normal floats below FLT_MIN is exact (a multiple of 2^-149), so an
// IEEE sum of exactly FLT_MIN was not tiny. The emulation needs no particular host FPU mode:
// no subnormal value reaches an operator (its IEEE result may be subnormal, or flushed by
// the host's FTZ, and is flushed either way). Add's first operand is an accumulator, already
// a value of the mode, so only its second is flushed; a result in (FLT_MIN, FLT_MAX] costs
// one unsigned compare (a soft-float core pays this per operation).
#ifndef TINYFORGE_KERNELS_F32_F32_ARITH_H_
#define TINYFORGE_KERNELS_F32_F32_ARITH_H_

#include <cstdint>

#include "kernels/common/isa.h"

namespace tinyforge::kernels::f32 {

inline uint32_t Bits(float v) {
  uint32_t b;
  __builtin_memcpy(&b, &v, sizeof b);
  return b;
}

inline float FromBits(uint32_t b) {
  float v;
  __builtin_memcpy(&v, &b, sizeof v);
  return v;
}

// A subnormal value as the zero of its sign (by its bits: no FPU mode involved).
inline float FlushBits(float v) {
  const uint32_t b = Bits(v);
  return (b & 0x7f800000u) == 0 ? FromBits(b & 0x80000000u) : v;
}

constexpr uint32_t kDefaultNan = 0x7fc00000u;
constexpr uint32_t kFpscrFz = 1u << 24;
constexpr uint32_t kFpscrDn = 1u << 25;
constexpr uint32_t kFpscrRmode = 3u << 22;

#if TF_HAVE_FPU

// The FPU in the standard mode for the scope: FZ = 1, DN = 1, round to nearest; the caller's
// FPSCR comes back at the end (3 + 1 instructions per kernel call).
class StandardFpscr {
 public:
  StandardFpscr() {
    __asm__ volatile("vmrs %0, fpscr" : "=r"(saved_));
    const uint32_t v = (saved_ & ~kFpscrRmode) | kFpscrFz | kFpscrDn;
    __asm__ volatile("vmsr fpscr, %0" : : "r"(v) : "memory");
  }
  ~StandardFpscr() { __asm__ volatile("vmsr fpscr, %0" : : "r"(saved_) : "memory"); }
  StandardFpscr(const StandardFpscr&) = delete;
  StandardFpscr& operator=(const StandardFpscr&) = delete;

 private:
  uint32_t saved_;
};

inline float Mul(float a, float b) { return a * b; }
// a: a value of this mode already (a result of Mul / Add / DivByCount, or a zero: the
// accumulators); b: any float.
inline float Add(float a, float b) { return a + b; }
inline float DivByCount(float s, int32_t count) { return s / static_cast<float>(count); }

#else  // emulated

class StandardFpscr {  // nothing to set; a user-provided destructor so it counts as used
 public:
  StandardFpscr() {}
  ~StandardFpscr() {}
  StandardFpscr(const StandardFpscr&) = delete;
  StandardFpscr& operator=(const StandardFpscr&) = delete;
};

// An IEEE result r, flushed below FLT_MIN; default NaN. `exact_tiny_at_min`: whether the exact
// value of a result rounded to exactly FLT_MIN lies below it.
template <class TinyAtMin>
inline float Standard(float r, TinyAtMin exact_tiny_at_min) {
  const uint32_t b = Bits(r);
  const uint32_t mag = b & 0x7fffffffu;
  if (mag - 0x00800001u < 0x7effffffu) return r;  // finite, above FLT_MIN: one test
  if (mag > 0x7f800000u) return FromBits(kDefaultNan);
  if (mag < 0x00800000u) return FromBits(b & 0x80000000u);
  if (mag == 0x00800000u && exact_tiny_at_min()) return FromBits(b & 0x80000000u);
  return r;
}

inline float Mul(float a, float b) {
  a = FlushBits(a);
  b = FlushBits(b);
  return Standard(a * b, [&] {
    const double e = static_cast<double>(a) * static_cast<double>(b);  // exact
    return (e < 0 ? -e : e) < 1.1754943508222875e-38;                  // FLT_MIN
  });
}

inline float Add(float a, float b) {
  return Standard(a + FlushBits(b), [] { return false; });
}

inline float DivByCount(float s, int32_t count) {
  s = FlushBits(s);
  return Standard(s / static_cast<float>(count), [&] {
    const double e = static_cast<double>(s);
    return (e < 0 ? -e : e) < 1.1754943508222875e-38 * static_cast<double>(count);
  });
}

#endif

}  // namespace tinyforge::kernels::f32

#endif  // TINYFORGE_KERNELS_F32_F32_ARITH_H_
