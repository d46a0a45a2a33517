// Portable reference MAXIMUM / MINIMUM (the oracles for every other variant).
#include "kernels/common/broadcast.h"
#include "kernels/minmax/minmax.h"

extern "C" void s8_maximum__ref(const s8_minmax_params* params, const int8_t* input1,
                                const int8_t* input2, int8_t* output) {
  tinyforge::kernels::ForEachBroadcast(params->shape, [&](int32_t i1, int32_t i2, int32_t o) {
    output[o] = input1[i1] > input2[i2] ? input1[i1] : input2[i2];
  });
}

extern "C" void s8_minimum__ref(const s8_minmax_params* params, const int8_t* input1,
                                const int8_t* input2, int8_t* output) {
  tinyforge::kernels::ForEachBroadcast(params->shape, [&](int32_t i1, int32_t i2, int32_t o) {
    output[o] = input1[i1] < input2[i2] ? input1[i1] : input2[i2];
  });
}
