// PAD for cores without SIMD (also built on the host), bit-identical to s8_pad__ref: the
// row walk of pad_rows.h with word fills and word copies (byte heads and tails).
#include "kernels/pad/pad.h"
#include "kernels/pad/pad_rows.h"

namespace {

struct WordRows {
  static void Fill(int8_t* dst, int32_t n, int8_t v) {
    const uint32_t w = 0x01010101u * static_cast<uint8_t>(v);
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
      __builtin_memcpy(dst + i, &w, 4);
      __builtin_memcpy(dst + i + 4, &w, 4);
    }
    for (; i < n; ++i) dst[i] = v;
  }
  static void Copy(int8_t* dst, const int8_t* src, int32_t n) {
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint32_t a, b;
      __builtin_memcpy(&a, src + i, 4);
      __builtin_memcpy(&b, src + i + 4, 4);
      __builtin_memcpy(dst + i, &a, 4);
      __builtin_memcpy(dst + i + 4, &b, 4);
    }
    for (; i < n; ++i) dst[i] = src[i];
  }
};

}  // namespace

extern "C" void s8_pad__scalar(const s8_pad_params* params, const int8_t* input,
                               int8_t* output) {
  tinyforge::pad::Run<WordRows>(*params, input, output);
}
