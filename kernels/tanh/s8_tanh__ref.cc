// Portable reference TANH (the oracle for every other tanh variant).
#include "kernels/common/fixed_point.h"
#include "kernels/common/fixed_point_math.h"
#include "kernels/tanh/tanh.h"

namespace fx = tinyforge::fx;

extern "C" void s8_tanh__ref(const s8_tanh_params* params, const int8_t* input, int8_t* output) {
  // Q0.31 -> 1/128 steps, output zero point 0.
  fx::SaturatingQ4Activation<fx::Tanh<4>, 7, 0>(*params, input, output);
}
