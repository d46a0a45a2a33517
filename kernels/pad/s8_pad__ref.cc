// Portable reference PAD (the oracle for every other pad variant).
#include "kernels/pad/pad.h"

namespace {

bool Inside(int32_t out_index, int32_t before, int32_t extent) {
  return out_index >= before && out_index < before + extent;
}

}  // namespace

extern "C" void s8_pad__ref(const s8_pad_params* params, const int8_t* input, int8_t* output) {
  const s8_pad_params& p = *params;
  int32_t out_dims[kS8PadMaxDims];
  for (int i = 0; i < kS8PadMaxDims; ++i) {
    out_dims[i] = p.input_dims[i] + p.pad_before[i] + p.pad_after[i];
  }
  const int8_t pad_value = static_cast<int8_t>(p.pad_value);
  const int32_t* in_d = p.input_dims;
  const int32_t* b = p.pad_before;
  int8_t* out = output;
  // Input elements are consumed in order: the output is walked in C order and the input
  // pointer advances exactly when an interior element is written.
  const int8_t* in = input;
  for (int32_t i0 = 0; i0 < out_dims[0]; ++i0) {
    const bool in0 = Inside(i0, b[0], in_d[0]);
    for (int32_t i1 = 0; i1 < out_dims[1]; ++i1) {
      const bool in1 = in0 && Inside(i1, b[1], in_d[1]);
      for (int32_t i2 = 0; i2 < out_dims[2]; ++i2) {
        const bool in2 = in1 && Inside(i2, b[2], in_d[2]);
        for (int32_t i3 = 0; i3 < out_dims[3]; ++i3) {
          const bool in3 = in2 && Inside(i3, b[3], in_d[3]);
          for (int32_t i4 = 0; i4 < out_dims[4]; ++i4) {
            *out++ = (in3 && Inside(i4, b[4], in_d[4])) ? *in++ : pad_value;
          }
        }
      }
    }
  }
}
