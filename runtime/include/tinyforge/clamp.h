// Output clamps of fused activations: the one definition the emitter (compiler/emit: whether
// an op's clamp needs the CLAMP flag) and the op validators (runtime/ops: whether an op's
// act_min/act_max agree with its output tensor's quantization) both use
// (docs/program-format.md, "Consistency checks"). Freestanding C++17; float arithmetic
// only at init.
#ifndef TINYFORGE_RUNTIME_CLAMP_H_
#define TINYFORGE_RUNTIME_CLAMP_H_

#include <cstdint>

namespace tinyforge::rt {

// TFLite's activation bound: zero_point + round_half_away(real / scale) in float (its
// Quantize() helper in kernel_util.cc), saturated to int8. scale > 0 and finite.
// Not inlined: called four times per check, once at init (code size).
__attribute__((noinline)) inline int32_t ClampBound(float real, float scale,
                                                    int32_t zero_point) {
  const float x = real / scale;
  if (!(x > -1e6f && x < 1e6f)) return x > 0.0f ? 127 : -128;  // saturates either way
  int32_t t = static_cast<int32_t>(x);  // toward zero; x - t is exact below 2^23
  const float frac = x - static_cast<float>(t);
  if (frac >= 0.5f) ++t;
  if (frac <= -0.5f) --t;
  const int32_t v = zero_point + t;
  return v < -128 ? -128 : v > 127 ? 127 : v;
}

// Whether [act_min, act_max] is the clamp of a fused activation (none, relu, relu6,
// relu_n1_to_1) for an output of quantization (scale, zero_point), as TFLite's
// CalculateActivationRangeQuantized computes it. Other clamps (PyTorch's clamp, hardtanh)
// are declared with the op flag CLAMP (tinyforge/program_format.h).
inline bool FusedActivationClamp(float scale, int32_t zero_point, int32_t act_min,
                                 int32_t act_max) {
  const int32_t relu = ClampBound(0.0f, scale, zero_point);
  if (act_max == 127 && (act_min == -128 || act_min == relu)) return true;  // none, relu
  if (act_min == relu && act_max == ClampBound(6.0f, scale, zero_point)) return true;
  return act_min == ClampBound(-1.0f, scale, zero_point) &&
         act_max == ClampBound(1.0f, scale, zero_point);
}

}  // namespace tinyforge::rt

#endif  // TINYFORGE_RUNTIME_CLAMP_H_
