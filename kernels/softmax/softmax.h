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
//
// Exp table (the fast variants, on calls of many elements): an int8 diff takes at most 256
// values, so the exps of all of them are computed once per call into a scratch buffer
// (s8_softmax_table_bytes) and each element's exp is one load. Small calls (a classifier
// head) compute each exp instead and need no scratch.
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

// Elements per call (rows * depth) from which a variant builds the exp table: where the
// table's set-up (one exp per diff at or above diff_min, at most 256) costs less than the
// per-element exps it saves. Kernel bench (benchmarks/kernels, beta * scale 0.17: 125 exps),
// instructions without -> with the table: 8x32 (256 elements) on an386 __dsp 18,158 ->
// 14,404, __scalar 19,194 -> 15,430, on an385 __scalar 21,702 -> 19,082 (set-up about 8,500
// and 12,000 instructions, break-even near 180 and 215 elements); __mve from 512 (its
// per-element exps are cheaper). Rows of 1 or 2 elements never use it (one exp at most).
constexpr int64_t kSoftmaxTableMinScalar = 256;
constexpr int64_t kSoftmaxTableMinDsp = 256;
constexpr int64_t kSoftmaxTableMinMve = 512;

// Scratch bytes of a variant whose table threshold is `min_elements`: the table (256 int32
// exps, 1 KB) when the call uses it, else 0. The kernels decide with the same function.
constexpr int64_t s8_softmax_table_bytes(const s8_softmax_params& p, int64_t min_elements) {
  return p.depth > 2 && int64_t{p.rows} * p.depth >= min_elements ? 256 * 4 : 0;
}

extern "C" {
// scratch: unused by __ref (may be null).
void s8_softmax__ref(const s8_softmax_params* params, const int8_t* input, int8_t* output,
                     void* scratch);
// scratch (4-byte aligned): s8_softmax_table_bytes(p, kSoftmaxTableMin<Isa>) bytes, null
// when that is 0 (softmax.inc).
void s8_softmax__scalar(const s8_softmax_params* params, const int8_t* input, int8_t* output,
                        void* scratch);
void s8_softmax__dsp(const s8_softmax_params* params, const int8_t* input, int8_t* output,
                     void* scratch);
void s8_softmax__mve(const s8_softmax_params* params, const int8_t* input, int8_t* output,
                     void* scratch);
}

#endif  // TINYFORGE_KERNELS_SOFTMAX_SOFTMAX_H_
