// MEAN (reduce_mean) of an int8 tensor over one contiguous run of axes, e.g. H and W of
// NHWC (global average pooling), as TFLite Micro computes int8 MEAN: EvalIntegerMean ->
// reference_ops::QuantizedMeanOrSum(compute_sum = false):
//   sum    = sum of the reduce_size int8 inputs (int32)
//   y      = MBQM(sum - input_zero_point * reduce_size, multiplier, shift) + output_zero_point
//   output = clamp(y, -128, 127)                    (MEAN has no fused activation)
// where (multiplier, shift) already include the 1/reduce_size factor, folded at compile
// time exactly as QuantizedMeanOrSum folds it (compiler/quant MakeMeanParams).
//
// The input is viewed as [outer, reduce_size, inner] and the output as [outer, inner]:
// for NHWC over H, W: outer = N, reduce_size = H * W, inner = C.
#ifndef TINYFORGE_KERNELS_MEAN_MEAN_H_
#define TINYFORGE_KERNELS_MEAN_MEAN_H_

#include <cstdint>

#include "kernels/common/rounding.h"

struct s8_mean_params {
  int32_t outer;              // >= 1
  int32_t reduce_size;        // >= 1, number of elements averaged
  int32_t inner;              // >= 1
  int32_t input_zero_point;   // in [-128, 127]
  int32_t output_zero_point;  // in [-128, 127]
  // in_scale / out_scale / reduce_size = multiplier * 2^(shift - 31), folded as TFLite.
  int32_t multiplier, shift;
  // Requantization rounding: TF_ROUNDING_DOUBLE (0, TFLite Micro) or TF_ROUNDING_SINGLE (1),
  // kernels/common/rounding.h. Zero-initialized structs get TFLM's double rounding.
  int32_t rounding;
};

// REDUCE_MAX (tf.reduce_max, torch.amax) of an int8 tensor over one contiguous run of axes,
// viewed like MEAN's input as [outer, reduce_size, inner] -> [outer, inner]. Input and
// output share their quantization (TFLite Micro's Prepare requires it): the result is the
// largest raw int8 value, as reference_ops::ReduceGeneric with max computes it.
struct s8_reduce_max_params {
  int32_t outer;        // >= 1
  int32_t reduce_size;  // >= 1
  int32_t inner;        // >= 1
};

extern "C" {
void s8_mean__ref(const s8_mean_params* params, const int8_t* input, int8_t* output);
void s8_reduce_max__ref(const s8_reduce_max_params* params, const int8_t* input, int8_t* output);

void s8_mean__scalar(const s8_mean_params* params, const int8_t* input, int8_t* output);
void s8_reduce_max__scalar(const s8_reduce_max_params* params, const int8_t* input,
                           int8_t* output);
// Built for DSP cores only (kernels/common/isa.h TF_HAVE_DSP).
void s8_mean__dsp(const s8_mean_params* params, const int8_t* input, int8_t* output);
void s8_reduce_max__dsp(const s8_reduce_max_params* params, const int8_t* input,
                        int8_t* output);
// Built for MVE cores only (TF_HAVE_MVE).
void s8_mean__mve(const s8_mean_params* params, const int8_t* input, int8_t* output);
void s8_reduce_max__mve(const s8_reduce_max_params* params, const int8_t* input, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_MEAN_MEAN_H_
