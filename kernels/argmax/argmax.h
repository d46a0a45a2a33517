// ARG_MAX / ARG_MIN (torch.argmax / argmin) of an int8 tensor over one axis, int32 indices.
//   input  [outer, axis_size, inner] (dense C order)
//   output [outer, inner]: output[o, i] = the lowest a with input[o, a, i] the largest
//          (is_min 0) or the smallest (is_min 1) of input[o, :, i]
// Ties go to the lowest index (TFLite's ArgMinMax compares strictly; torch returns the first
// maximal value). The int8 values are compared raw: the quantization is monotone.
#ifndef TINYFORGE_KERNELS_ARGMAX_ARGMAX_H_
#define TINYFORGE_KERNELS_ARGMAX_ARGMAX_H_

#include <cstdint>

struct s8_argmax_params {
  int32_t outer;      // >= 1
  int32_t axis_size;  // >= 1
  int32_t inner;      // >= 1
  int32_t is_min;     // 0: arg max, 1: arg min
};

extern "C" {
// Output (int32) must not overlap the input.
void s8_argmax__ref(const s8_argmax_params* params, const int8_t* input, int32_t* output);
// Cortex-M55 (Helium): the innermost axis (inner == 1) 16 lanes at a time; else __ref.
void s8_argmax__mve(const s8_argmax_params* params, const int8_t* input, int32_t* output);
}

#endif  // TINYFORGE_KERNELS_ARGMAX_ARGMAX_H_
