// Portable reference LOGISTIC (the oracle for every other logistic variant).
#include "kernels/common/fixed_point.h"
#include "kernels/common/fixed_point_math.h"
#include "kernels/logistic/logistic.h"

namespace fx = tinyforge::fx;

extern "C" void s8_logistic__ref(const s8_logistic_params* params, const int8_t* input,
                                 int8_t* output) {
  // Q0.31 -> 1/256 steps, offset to the output zero point -128.
  fx::SaturatingQ4Activation<fx::Logistic<4>, 8, -128>(*params, input, output);
}
