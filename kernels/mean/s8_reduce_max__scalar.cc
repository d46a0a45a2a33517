// REDUCE_MAX for cores without SIMD (Cortex-M0/M3; also built on the host). Bit-identical to
// s8_reduce_max__ref: four inner positions at a time in registers, walked down the reduced
// rows with pointer increments; inner == 1 scans contiguous bytes.
#include "kernels/mean/mean.h"

namespace {
inline int32_t Max(int32_t a, int32_t b) { return a > b ? a : b; }
}  // namespace

extern "C" void s8_reduce_max__scalar(const s8_reduce_max_params* params, const int8_t* input,
                                      int8_t* output) {
  const s8_reduce_max_params& p = *params;
  const int32_t R = p.reduce_size, C = p.inner;
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* in = input + o * R * C;
    int8_t* out = output + o * C;
    int32_t c = 0;
    for (; c + 4 <= C; c += 4) {
      int32_t m0 = -128, m1 = -128, m2 = -128, m3 = -128;
      const int8_t* q = in + c;
      for (int32_t r = R; r > 0; --r, q += C) {
        m0 = Max(m0, q[0]), m1 = Max(m1, q[1]), m2 = Max(m2, q[2]), m3 = Max(m3, q[3]);
      }
      out[c] = static_cast<int8_t>(m0), out[c + 1] = static_cast<int8_t>(m1);
      out[c + 2] = static_cast<int8_t>(m2), out[c + 3] = static_cast<int8_t>(m3);
    }
    for (; c < C; ++c) {
      int32_t m = -128;
      const int8_t* q = in + c;
      for (int32_t r = R; r > 0; --r, q += C) m = Max(m, *q);
      out[c] = static_cast<int8_t>(m);
    }
  }
}
