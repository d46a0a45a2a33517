// Portable reference TRANSPOSE (the oracle for every other transpose variant): the output
// in C order, each element read from the input position its index maps to.
#include "kernels/transpose/transpose.h"

extern "C" void s8_transpose__ref(const s8_transpose_params* params, const int8_t* input,
                                  int8_t* output) {
  constexpr int kN = kS8TransposeMaxDims;
  const s8_transpose_params& p = *params;
  int32_t in_stride[kN];
  int32_t s = 1;
  for (int d = kN - 1; d >= 0; --d) {
    in_stride[d] = s;
    s *= p.input_dims[d];
  }
  int32_t od[kN], st[kN];  // output dims and the input stride along each
  for (int d = 0; d < kN; ++d) {
    od[d] = p.input_dims[p.perm[d]];
    st[d] = in_stride[p.perm[d]];
  }
  int8_t* out = output;
  for (int32_t i0 = 0; i0 < od[0]; ++i0) {
    for (int32_t i1 = 0; i1 < od[1]; ++i1) {
      for (int32_t i2 = 0; i2 < od[2]; ++i2) {
        for (int32_t i3 = 0; i3 < od[3]; ++i3) {
          for (int32_t i4 = 0; i4 < od[4]; ++i4) {
            for (int32_t i5 = 0; i5 < od[5]; ++i5) {
              *out++ = input[i0 * st[0] + i1 * st[1] + i2 * st[2] + i3 * st[3] + i4 * st[4] +
                             i5 * st[5]];
            }
          }
        }
      }
    }
  }
}
