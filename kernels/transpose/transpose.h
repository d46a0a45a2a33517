// TRANSPOSE (torch.permute) of an int8 tensor of up to 6 dimensions: pure data movement.
//   output[i_0, ..., i_5] = input[j] with j_perm[d] = i_d, i.e. output dim d is input dim
//   perm[d] (TFLite Micro reference_ops::Transpose, torch.permute).
//
// Layout: dense C order; dimensions are outermost first. Unused leading dimensions are 1
// with identity entries in perm. The compiler passes the smallest equivalent problem
// (compiler/quant MakeTransposeParams: size-1 dims dropped, dims adjacent in both orders
// merged), so an NHWC <-> NCHW transpose of a batch-1 tensor arrives as a 2-D one.
#ifndef TINYFORGE_KERNELS_TRANSPOSE_TRANSPOSE_H_
#define TINYFORGE_KERNELS_TRANSPOSE_TRANSPOSE_H_

#include <cstdint>

constexpr int kS8TransposeMaxDims = 6;

struct s8_transpose_params {
  int32_t input_dims[kS8TransposeMaxDims];  // each >= 1
  int32_t perm[kS8TransposeMaxDims];        // a permutation of 0..5
};

extern "C" {
// Output must not alias the input.
void s8_transpose__ref(const s8_transpose_params* params, const int8_t* input, int8_t* output);
void s8_transpose__scalar(const s8_transpose_params* params, const int8_t* input,
                          int8_t* output);
void s8_transpose__mve(const s8_transpose_params* params, const int8_t* input, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_TRANSPOSE_TRANSPOSE_H_
