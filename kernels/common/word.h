// Four int8 values as one 32-bit word, the unit of the SWAR (__scalar) and DSP-extension
// (__dsp) kernels: an unaligned load / store (one LDR / STR on v7-M and v8-M Mainline) and
// the DSP-extension byte and halfword operations several kernel families share. Internal
// header; the DSP part exists only `#if TF_HAVE_DSP` (kernels/common/isa.h).
#ifndef TINYFORGE_KERNELS_COMMON_WORD_H_
#define TINYFORGE_KERNELS_COMMON_WORD_H_

#include <cstdint>

#include "kernels/common/isa.h"

namespace tinyforge {

inline uint32_t LoadWord(const int8_t* p) {
  uint32_t v;
  __builtin_memcpy(&v, p, 4);
  return v;
}

inline void StoreWord(int8_t* p, uint32_t v) { __builtin_memcpy(p, &v, 4); }

#if TF_HAVE_DSP
namespace dsp {

// The larger / smaller signed byte of each lane. One asm each: the GE flags SSUB8 sets must
// reach SEL untouched.
inline uint32_t Max4(uint32_t a, uint32_t b) {
  uint32_t r;  // GE[i] = a[i] >= b[i]: pick a
  __asm__("ssub8 %0, %1, %2\n\tsel %0, %1, %2" : "=&r"(r) : "r"(a), "r"(b) : "cc");
  return r;
}
inline uint32_t Min4(uint32_t a, uint32_t b) {
  uint32_t r;  // GE[i] = b[i] >= a[i]: pick a
  __asm__("ssub8 %0, %2, %1\n\tsel %0, %1, %2" : "=&r"(r) : "r"(a), "r"(b) : "cc");
  return r;
}

// a + [byte 1, byte 3] of x sign-extended into the two int16 lanes (SXTAB16 ROR 8).
inline uint32_t Sxtab16Ror8(uint32_t a, uint32_t x) {
  uint32_t r;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(x));
  return r;
}

// [byte 1, byte 3] of x sign-extended into the two int16 lanes (SXTB16 ROR 8).
inline int32_t Sxtb16Ror8(int32_t x) {
  int32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
  return r;
}

// hi32(a * b) + acc (SMMLA): the high word of a Q31 product, plus a rounding and offset term.
inline int32_t Smmla(int32_t a, int32_t b, int32_t acc) {
  int32_t r;
  __asm__("smmla %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  return r;
}

// SSAT8(h >> 16): with Smmla's acc = 2^15 + offset * 2^16, a single-rounding requantization
// with its offset and saturation in two instructions (s8_mul__dsp, s8_prelu__dsp).
inline int32_t Sat8Shr16(int32_t h) {
  int32_t r;
  __asm__("ssat %0, #8, %1, asr #16" : "=r"(r) : "r"(h));
  return r;
}

}  // namespace dsp
#endif  // TF_HAVE_DSP

}  // namespace tinyforge

#endif  // TINYFORGE_KERNELS_COMMON_WORD_H_
