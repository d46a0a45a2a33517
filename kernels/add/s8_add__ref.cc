// Portable reference ADD, SUB and SQUARED_DIFFERENCE (the oracles for every other variant).
#include "kernels/add/add.h"
#include "kernels/add/add_linear.h"
#include "kernels/common/broadcast.h"
#include "kernels/common/fixed_point.h"

namespace fx = tinyforge::fx;

namespace {

// Input k's offset value shifted left and rescaled by its multiplier (< 1).
inline int32_t Rescale(const s8_add_params& p, int32_t offset, int8_t x, int32_t m, int32_t s) {
  const int32_t v = fx::WrapShiftLeft(offset + x, p.left_shift);
  return fx::RequantizeSmallerThanOne(v, m, s, p.rounding);
}

template <bool kSub>
void AddOrSub(const s8_add_params& p, const int8_t* input1, const int8_t* input2, int8_t* output) {
  tinyforge::kernels::ForEachBroadcast(p.shape, [&](int32_t i1, int32_t i2, int32_t o) {
    output[o] = tinyforge::add_linear::Element<kSub>(p, input1[i1], input2[i2]);
  });
}

}  // namespace

extern "C" void s8_add__ref(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                            int8_t* output) {
  AddOrSub<false>(*params, input1, input2, output);
}

extern "C" void s8_sub__ref(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                            int8_t* output) {
  AddOrSub<true>(*params, input1, input2, output);
}

extern "C" void s8_squared_difference__ref(const s8_add_params* params, const int8_t* input1,
                                           const int8_t* input2, int8_t* output) {
  const s8_add_params& p = *params;
  tinyforge::kernels::ForEachBroadcast(p.shape, [&](int32_t i1, int32_t i2, int32_t o) {
    const int32_t a = Rescale(p, p.input1_offset, input1[i1], p.input1_multiplier, p.input1_shift);
    const int32_t b = Rescale(p, p.input2_offset, input2[i2], p.input2_multiplier, p.input2_shift);
    // |d| <= 255 << 7 with TFLite's parameters (input multipliers below 1), where d * d fits
    // int32; other parameters the validator accepts wrap (defined, like the other kernels).
    const int32_t d = fx::WrapSub(a, b);
    const int32_t y = fx::WrapAdd(
        fx::Requantize(fx::WrapMul(d, d), p.output_multiplier, p.output_shift, p.rounding),
        p.output_offset);
    output[o] = static_cast<int8_t>(fx::Clamp(y, p.act_min, p.act_max));
  });
}
