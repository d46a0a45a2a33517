// MAXIMUM / MINIMUM of two int8 tensors, NumPy broadcasting.
// Numerics: TFLite Micro maximum_minimum.cc on int8: the raw int8 values are compared; both
// inputs and the output carry the same scale and zero point (the compiler checks, and
// inserts a requantize where a graph's do not agree), so no arithmetic is needed.
#ifndef TINYFORGE_KERNELS_MINMAX_MINMAX_H_
#define TINYFORGE_KERNELS_MINMAX_MINMAX_H_

#include <cstdint>

#include "kernels/common/broadcast.h"

struct s8_minmax_params {
  s8_broadcast_shape shape;
};

extern "C" {
// input1, input2 and output may alias exactly (in-place) when not broadcast.
void s8_maximum__ref(const s8_minmax_params* params, const int8_t* input1, const int8_t* input2,
                     int8_t* output);
void s8_minimum__ref(const s8_minmax_params* params, const int8_t* input1, const int8_t* input2,
                     int8_t* output);
// Row-wise (innermost dimension as one loop with pointer strides): every core.
void s8_maximum__scalar(const s8_minmax_params* params, const int8_t* input1,
                        const int8_t* input2, int8_t* output);
void s8_minimum__scalar(const s8_minmax_params* params, const int8_t* input1,
                        const int8_t* input2, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_MINMAX_MINMAX_H_
