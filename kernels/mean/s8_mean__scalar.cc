// MEAN / SUM for cores without SIMD (Cortex-M0/M3; also built on the host). Bit-identical to
// s8_mean__ref.
//
// Four inner positions (channels) at a time, summed down the reduced rows with pointer walks
// into four int32 registers instead of the reference's index arithmetic; inner == 1 (a run of
// contiguous inputs per output) is summed four bytes at a time.
#include "kernels/mean/mean.h"
#include "kernels/mean/reduce_walk.h"

namespace mean = tinyforge::mean;

namespace {

// The sum of the r contiguous inputs from q (inner == 1).
int32_t SumRun(const int8_t* q, int32_t r) {
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (; r >= 4; r -= 4, q += 4) s0 += q[0], s1 += q[1], s2 += q[2], s3 += q[3];
  for (; r > 0; --r) s0 += *q++;
  return (s0 + s1) + (s2 + s3);
}

// The inner outputs of one slice (inner > 1).
void Columns(const s8_mean_params& p, int32_t zps, const int8_t* in, int8_t* out) {
  const int32_t R = p.reduce_size, C = p.inner;
  int32_t c = 0;
  for (; c + 4 <= C; c += 4) {
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    const int8_t* q = in + c;
    for (int32_t r = R; r > 0; --r, q += C) a0 += q[0], a1 += q[1], a2 += q[2], a3 += q[3];
    mean::Out4(p, a0, a1, a2, a3, zps, out + c);
  }
  for (; c < C; ++c) out[c] = mean::Out(p, mean::ColumnSum(in + c, R, C), zps);
}

}  // namespace

extern "C" void s8_mean__scalar(const s8_mean_params* params, const int8_t* input, int8_t* output) {
  mean::Mean(*params, input, output, SumRun, Columns);
}
