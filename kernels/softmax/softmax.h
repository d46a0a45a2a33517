// SOFTMAX over the innermost dimension, int8 in, int8 out (output scale 1/256, zero
// point -128, as TFLite requires). Numerics: TFLite Micro reference_ops::Softmax
// <int8_t, int8_t> (gemmlowp fixed point, kScaledDiffIntegerBits = 5,
// kAccumulationIntegerBits = 12), double rounding:
//   for each row: diff = x - max(row); only diff >= diff_min contributes
//   scaled = SRDHM(diff << input_left_shift, input_multiplier)       (Q5.26)
//   e = exp(scaled) (Q0.31);  sum += RoundingDivideByPOT(e, 12)    (Q12.19)
//   y = RoundingDivideByPOT(SRDHM(1/sum normalized, e), bits_over_unit + 23) - 128
// (input_multiplier, input_left_shift, diff_min) come from PreprocessSoftmaxScaling(beta,
// input_scale, 5) and -CalculateInputRadius(5, left_shift) (compiler/quant).
//
// Layout: input and output [rows, depth], dense.
#ifndef TINYFORGE_KERNELS_SOFTMAX_SOFTMAX_H_
#define TINYFORGE_KERNELS_SOFTMAX_SOFTMAX_H_

#include <cstdint>

struct s8_softmax_params {
  int32_t rows;              // >= 1, product of all dimensions but the last
  int32_t depth;             // >= 1, last dimension
  int32_t input_multiplier;  // Q31 of beta * in_scale * 2^26 (capped), >= 2^30
  int32_t input_left_shift;  // >= 0
  int32_t diff_min;          // <= 0; diffs below it give exp = 0
};

extern "C" {
void s8_softmax__ref(const s8_softmax_params* params, const int8_t* input, int8_t* output);
void s8_softmax__scalar(const s8_softmax_params* params, const int8_t* input, int8_t* output);
void s8_softmax__dsp(const s8_softmax_params* params, const int8_t* input, int8_t* output);
void s8_softmax__mve(const s8_softmax_params* params, const int8_t* input, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_SOFTMAX_SOFTMAX_H_
