// Portable reference SLICE (the oracle for every other slice variant): the output in C
// order, each element read at its index's position in the input.
#include "kernels/slice/slice.h"

extern "C" void s8_slice__ref(const s8_slice_params* params, const int8_t* input,
                              int8_t* output) {
  constexpr int kN = kS8SliceMaxDims;
  const s8_slice_params& p = *params;
  int32_t in_stride[kN];
  int32_t s = 1;
  for (int d = kN - 1; d >= 0; --d) {
    in_stride[d] = s;
    s *= p.input_dims[d];
  }
  const int32_t* od = p.output_dims;
  int8_t* out = output;
  auto at = [&](int d, int32_t i) { return (p.begin[d] + i * p.stride[d]) * in_stride[d]; };
  for (int32_t i0 = 0; i0 < od[0]; ++i0) {
    for (int32_t i1 = 0; i1 < od[1]; ++i1) {
      for (int32_t i2 = 0; i2 < od[2]; ++i2) {
        for (int32_t i3 = 0; i3 < od[3]; ++i3) {
          for (int32_t i4 = 0; i4 < od[4]; ++i4) {
            for (int32_t i5 = 0; i5 < od[5]; ++i5) {
              *out++ = input[at(0, i0) + at(1, i1) + at(2, i2) + at(3, i3) + at(4, i4) +
                             at(5, i5)];
            }
          }
        }
      }
    }
  }
}
