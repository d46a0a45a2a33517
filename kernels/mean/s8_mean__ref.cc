// Portable reference MEAN (the oracle for every other mean variant).
#include "kernels/mean/mean.h"
#include "kernels/mean/mean_out.h"

extern "C" void s8_mean__ref(const s8_mean_params* params, const int8_t* input, int8_t* output) {
  const s8_mean_params& p = *params;
  const int32_t zero_point_sum = tinyforge::mean::ZeroPointSum(p);
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* in_block = input + o * p.reduce_size * p.inner;
    for (int32_t i = 0; i < p.inner; ++i) {
      int32_t sum = 0;
      for (int32_t r = 0; r < p.reduce_size; ++r) sum += in_block[r * p.inner + i];
      output[o * p.inner + i] = tinyforge::mean::Out(p, sum, zero_point_sum);
    }
  }
}
