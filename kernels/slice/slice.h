// STRIDED_SLICE / SLICE (torch slice, narrow, select, split, chunk) of an int8 tensor of up to
// 6 dimensions: pure data movement.
//   output[i_0, ..., i_5] = input[begin_0 + i_0 * stride_0, ..., begin_5 + i_5 * stride_5]
// for i_d in [0, output_dims[d]) (TFLite Micro reference_ops::StridedSlice with positive
// strides and resolved begin/end).
//
// Layout: dense C order; dimensions are outermost first, unused leading ones are 1 with
// begin 0 and stride 1. The compiler checks begin_d + (output_dims_d - 1) * stride_d <
// input_dims_d; so does the runtime validator.
#ifndef TINYFORGE_KERNELS_SLICE_SLICE_H_
#define TINYFORGE_KERNELS_SLICE_SLICE_H_

#include <cstdint>

constexpr int kS8SliceMaxDims = 6;

struct s8_slice_params {
  int32_t input_dims[kS8SliceMaxDims];   // each >= 1
  int32_t output_dims[kS8SliceMaxDims];  // each >= 1
  int32_t begin[kS8SliceMaxDims];        // each >= 0
  int32_t stride[kS8SliceMaxDims];       // each >= 1
};

extern "C" {
// Output must not alias the input.
void s8_slice__ref(const s8_slice_params* params, const int8_t* input, int8_t* output);
void s8_slice__scalar(const s8_slice_params* params, const int8_t* input, int8_t* output);
void s8_slice__mve(const s8_slice_params* params, const int8_t* input, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_SLICE_SLICE_H_
