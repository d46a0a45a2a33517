// MEAN / SUM for cores without SIMD (Cortex-M0/M3; also built on the host). Bit-identical to
// s8_mean__ref.
//
// Four inner positions (channels) at a time, summed down the reduced rows with pointer walks
// into four int32 registers instead of the reference's index arithmetic; inner == 1 (a run of
// contiguous inputs per output) is summed four bytes at a time.
#include "kernels/mean/mean.h"
#include "kernels/mean/mean_out.h"

namespace mean = tinyforge::mean;

extern "C" void s8_mean__scalar(const s8_mean_params* params, const int8_t* input,
                                int8_t* output) {
  const s8_mean_params& p = *params;
  const int32_t zps = mean::ZeroPointSum(p);
  const int32_t R = p.reduce_size, C = p.inner;
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* in = input + o * R * C;
    int8_t* out = output + o * C;
    if (C == 1) {
      int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      const int8_t* q = in;
      int32_t r = R;
      for (; r >= 4; r -= 4, q += 4) s0 += q[0], s1 += q[1], s2 += q[2], s3 += q[3];
      for (; r > 0; --r) s0 += *q++;
      out[0] = mean::Out(p, (s0 + s1) + (s2 + s3), zps);
      continue;
    }
    int32_t c = 0;
    for (; c + 4 <= C; c += 4) {
      int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      const int8_t* q = in + c;
      for (int32_t r = R; r > 0; --r, q += C) a0 += q[0], a1 += q[1], a2 += q[2], a3 += q[3];
      out[c] = mean::Out(p, a0, zps);
      out[c + 1] = mean::Out(p, a1, zps);
      out[c + 2] = mean::Out(p, a2, zps);
      out[c + 3] = mean::Out(p, a3, zps);
    }
    for (; c < C; ++c) {
      int32_t a = 0;
      const int8_t* q = in + c;
      for (int32_t r = R; r > 0; --r, q += C) a += *q;
      out[c] = mean::Out(p, a, zps);
    }
  }
}
