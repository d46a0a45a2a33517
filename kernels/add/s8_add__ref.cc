// Portable reference ADD (the oracle for every other add variant).
#include "kernels/add/add.h"
#include "kernels/common/broadcast.h"
#include "kernels/common/fixed_point.h"

namespace fx = tinyforge::fx;

extern "C" void s8_add__ref(const s8_add_params* params, const int8_t* input1, const int8_t* input2,
                            int8_t* output) {
  const s8_add_params& p = *params;
  tinyforge::kernels::ForEachBroadcast(p.shape, [&](int32_t i1, int32_t i2, int32_t o) {
    const int32_t a = fx::WrapShiftLeft(p.input1_offset + input1[i1], p.left_shift);
    const int32_t b = fx::WrapShiftLeft(p.input2_offset + input2[i2], p.left_shift);
    const int32_t scaled_a =
        fx::RequantizeSmallerThanOne(a, p.input1_multiplier, p.input1_shift, p.rounding);
    const int32_t scaled_b =
        fx::RequantizeSmallerThanOne(b, p.input2_multiplier, p.input2_shift, p.rounding);
    const int32_t sum = scaled_a + scaled_b;
    const int32_t y = fx::RequantizeSmallerThanOne(sum, p.output_multiplier, p.output_shift,
                                                             p.rounding) +
                      p.output_offset;
    output[o] = static_cast<int8_t>(fx::Clamp(y, p.act_min, p.act_max));
  });
}
