// GATHER (torch embedding, index_select, .tflite GATHER with batch_dims 0) of an int8 tensor
// along one axis with int32 indices: pure data movement.
//   input   [outer, axis_size, inner] (dense C order)
//   indices [count], each in [0, axis_size), or in [-axis_size, axis_size) with wrap_negative
//           (a negative index counts from the end, as .tflite GATHER after Keras' Embedding
//           wrapping: SELECT(LESS(i, 0), i + axis_size, i))
//   output  [outer, count, inner]: output[o, c, i] = input[o, indices[c], i]
// The kernels do not check the indices: the runtime's glue (runtime/ops/gather.cc) rejects an
// index outside that range before calling one (docs/decisions.md 39).
#ifndef TINYFORGE_KERNELS_GATHER_GATHER_H_
#define TINYFORGE_KERNELS_GATHER_GATHER_H_

#include <cstdint>

struct s8_gather_params {
  int32_t outer;      // >= 1
  int32_t axis_size;  // >= 1
  int32_t count;      // >= 1: number of indices
  int32_t inner;      // >= 1: bytes per gathered row
  int32_t wrap_negative;  // 0 or 1: an index below 0 counts from the end (index + axis_size)
};

extern "C" {
// Output must not overlap the input or the indices.
void s8_gather__ref(const s8_gather_params* params, const int8_t* input, const int32_t* indices,
                    int8_t* output);
// Any core: one memcpy per gathered row (an embedding row, a channel block).
void s8_gather__scalar(const s8_gather_params* params, const int8_t* input,
                       const int32_t* indices, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_GATHER_GATHER_H_
