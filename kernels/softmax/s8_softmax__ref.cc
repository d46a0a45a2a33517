// Portable reference SOFTMAX (the oracle for every other softmax variant).
#include "kernels/common/fixed_point.h"
#include "kernels/common/fixed_point_math.h"
#include "kernels/softmax/softmax.h"

namespace fx = tinyforge::fx;

namespace {

constexpr int kScaledDiffIntegerBits = 5;
constexpr int kAccumulationIntegerBits = 12;

// exp(beta * in_scale * diff) in Q0 for diff in [diff_min, 0].
int32_t ExpOfDiff(const s8_softmax_params& p, int32_t diff) {
  const int32_t scaled =
      fx::MultiplyByQuantizedMultiplierGreaterThanOne(diff, p.input_multiplier, p.input_left_shift);
  return fx::ExpOnNegativeValues<kScaledDiffIntegerBits>(scaled);
}

}  // namespace

extern "C" void s8_softmax__ref(const s8_softmax_params* params, const int8_t* input,
                                int8_t* output, void* /*scratch*/) {
  const s8_softmax_params& p = *params;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * p.depth;
    int8_t* out = output + r * p.depth;

    int32_t max_in_row = -128;
    for (int32_t c = 0; c < p.depth; ++c) max_in_row = fx::Max(max_in_row, in[c]);

    // Sum of exps in Q12.19, accumulated in 64 bits and saturated to int32: every exp adds
    // at most 1.0 (2^19), so rows of 4,096 or more elements can exceed INT32_MAX, where
    // TFLite's int32 sum overflows (undefined behaviour). Any sum >= 512.0 gives 0 below.
    int64_t sum = 0;
    for (int32_t c = 0; c < p.depth; ++c) {
      const int32_t diff = in[c] - max_in_row;
      if (diff >= p.diff_min) sum += fx::Rescale<kAccumulationIntegerBits, 0>(ExpOfDiff(p, diff));
    }
    const int32_t sum_of_exps = sum > fx::kInt32Max ? fx::kInt32Max : static_cast<int32_t>(sum);

    // sum_of_exps == 0 only if diff_min > 0 (outside the contract): every output is -128.
    int num_bits_over_unit = 0;
    const int32_t shifted_scale =
        sum_of_exps > 0
            ? fx::GetReciprocal(sum_of_exps, kAccumulationIntegerBits, &num_bits_over_unit)
            : 0;
    // 31 - 8 output bits: the int8 result is a Q0.8 probability before the -128 offset.
    // A sum of exps >= 512.0 makes the exponent 32 or more, which TFLite Micro rejects
    // (TFLITE_CHECK; older versions shift by it: undefined behaviour). The quotient of the
    // product below, in [0, 2^31), by 2^32 or more rounds to 0: that is the result here.
    const int exponent = num_bits_over_unit + 31 - 8;

    for (int32_t c = 0; c < p.depth; ++c) {
      const int32_t diff = in[c] - max_in_row;
      if (diff >= p.diff_min) {
        const int32_t e = ExpOfDiff(p, diff);
        const int32_t q =
            exponent > 31
                ? 0
                : fx::RoundingDivideByPOT(fx::SaturatingRoundingDoublingHighMul(shifted_scale, e),
                                          exponent);
        const int32_t y = q - 128;
        out[c] = static_cast<int8_t>(fx::Clamp(y, -128, 127));
      } else {
        out[c] = -128;
      }
    }
  }
}
