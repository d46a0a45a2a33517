// LUT for Cortex-M4/M7/M33 (DSP extension), bit-exact with __ref. There is no SIMD table
// lookup below MVE: four elements per word load, each byte's table address formed with one
// UXTAB (table + rotated byte), four table byte loads, the results packed and stored as one
// word; 16 elements per loop iteration.
#include "kernels/lut/lut.h"
#include "kernels/common/isa.h"
#include "kernels/common/word.h"

#if TF_HAVE_DSP

namespace {

using tinyforge::LoadWord;
using tinyforge::StoreWord;

// table + ((w ror rot) & 0xFF): one UXTAB.
template <int kRot>
inline const uint8_t* Entry(const uint8_t* table, uint32_t w) {
  uint32_t a;
  if constexpr (kRot == 0) {
    __asm__("uxtab %0, %1, %2" : "=r"(a) : "r"(table), "r"(w));
  } else {
    __asm__("uxtab %0, %1, %2, ror %3" : "=r"(a) : "r"(table), "r"(w), "i"(kRot));
  }
  return reinterpret_cast<const uint8_t*>(a);
}

inline uint32_t Word(const uint8_t* t, uint32_t w) {
  return *Entry<0>(t, w) | (uint32_t{*Entry<8>(t, w)} << 8) |
         (uint32_t{*Entry<16>(t, w)} << 16) | (uint32_t{*Entry<24>(t, w)} << 24);
}

}  // namespace

// 16 elements per iteration (4 words read before any is written: exact in-place is fine),
// which brings the loop overhead to a quarter instruction per element.
extern "C" void s8_lut__dsp(const s8_lut_params* params, const int8_t* input,
                            const int8_t* table, int8_t* output) {
  const uint8_t* t = reinterpret_cast<const uint8_t*>(table);
  int32_t n = params->size;
  for (; n >= 16; n -= 16, input += 16, output += 16) {
    const uint32_t w0 = LoadWord(input), w1 = LoadWord(input + 4);
    const uint32_t w2 = LoadWord(input + 8), w3 = LoadWord(input + 12);
    StoreWord(output, Word(t, w0));
    StoreWord(output + 4, Word(t, w1));
    StoreWord(output + 8, Word(t, w2));
    StoreWord(output + 12, Word(t, w3));
  }
  for (; n >= 4; n -= 4, input += 4, output += 4) StoreWord(output, Word(t, LoadWord(input)));
  for (int32_t i = 0; i < n; ++i) output[i] = table[static_cast<uint8_t>(input[i])];
}

#endif  // TF_HAVE_DSP
