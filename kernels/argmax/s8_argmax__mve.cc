// ARG_MAX / ARG_MIN for Cortex-M55 (Helium / MVE), bit-identical to s8_argmax__ref. The
// innermost axis (inner == 1, a classifier's last op): the row's extreme value 16 lanes at a
// time, then the first lane equal to it (the lowest index, as __ref). Other axes: __ref.
#include "kernels/argmax/argmax.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

namespace {

template <bool kMin>
int32_t RowArg(const int8_t* row, int32_t n) {
  int8x16_t acc = vdupq_n_s8(row[0]);
  for (int32_t k = 0; k < n; k += 16) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - k));
    const int8x16_t v = vldrbq_z_s8(row + k, p);
    acc = kMin ? vminq_m_s8(acc, acc, v, p) : vmaxq_m_s8(acc, acc, v, p);
  }
  const int8_t best = kMin ? vminvq_s8(127, acc) : vmaxvq_s8(-128, acc);
  for (int32_t k = 0; k < n; k += 16) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - k));
    const mve_pred16_t eq = vcmpeqq_m_n_s8(vldrbq_z_s8(row + k, p), best, p);
    if (eq != 0) return k + __builtin_ctz(eq);
  }
  return 0;  // unreachable: `best` is one of the row's values
}

}  // namespace

extern "C" void s8_argmax__mve(const s8_argmax_params* params, const int8_t* input,
                               int32_t* output) {
  const s8_argmax_params& p = *params;
  if (p.inner != 1) {
    s8_argmax__ref(params, input, output);
    return;
  }
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* row = input + o * p.axis_size;
    output[o] = p.is_min ? RowArg<true>(row, p.axis_size) : RowArg<false>(row, p.axis_size);
  }
}

#endif  // TF_HAVE_MVE
