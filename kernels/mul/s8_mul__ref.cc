// Portable reference MUL (the oracle for every other mul variant).
#include "kernels/common/broadcast.h"
#include "kernels/common/fixed_point.h"
#include "kernels/mul/mul.h"

namespace fx = tinyforge::fx;

extern "C" void s8_mul__ref(const s8_mul_params* params, const int8_t* input1, const int8_t* input2,
                            int8_t* output) {
  const s8_mul_params& p = *params;
  tinyforge::kernels::ForEachBroadcast(p.shape, [&](int32_t i1, int32_t i2, int32_t o) {
    const int32_t a = p.input1_offset + input1[i1];
    const int32_t b = p.input2_offset + input2[i2];
    const int32_t y =
        fx::Requantize(a * b, p.output_multiplier, p.output_shift, p.rounding) +
        p.output_offset;
    output[o] = static_cast<int8_t>(fx::Clamp(y, p.act_min, p.act_max));
  });
}
