// Portable reference BATCH_MATMUL (the oracle for every other bmm variant).
#include "kernels/bmm/bmm.h"
#include "kernels/common/fixed_point.h"

namespace fx = tinyforge::fx;

extern "C" void s8_bmm__ref(const s8_bmm_params* params, const int8_t* lhs, const int8_t* rhs,
                            int8_t* output, void* /*scratch*/) {
  const s8_bmm_params& p = *params;
  const int32_t m = p.rows, k = p.depth, n = p.cols;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* a = lhs + (b % p.lhs_batches) * m * k;
    const int8_t* w = rhs + (b % p.rhs_batches) * k * n;
    int8_t* out = output + b * m * n;
    for (int32_t i = 0; i < m; ++i) {
      for (int32_t j = 0; j < n; ++j) {
        int32_t acc = 0;
        for (int32_t d = 0; d < k; ++d) {
          const int32_t x = a[p.lhs_transposed ? d * m + i : i * k + d] + p.lhs_offset;
          const int32_t y = w[p.rhs_transposed ? j * k + d : d * n + j] + p.rhs_offset;
          acc = fx::WrapAdd(acc, x * y);
        }
        acc = fx::Requantize(acc, p.multiplier, p.shift, p.rounding);
        acc = fx::WrapAdd(acc, p.output_offset);
        out[i * n + j] = static_cast<int8_t>(fx::Clamp(acc, p.act_min, p.act_max));
      }
    }
  }
}
