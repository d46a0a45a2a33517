// The output clamp of the float layer kernels (f32.h): a fused ReLU / ReLU6, -inf..inf for
// none. NaN passes through (both comparisons are false), as in PyTorch's relu.
#ifndef TINYFORGE_KERNELS_F32_F32_CLAMP_H_
#define TINYFORGE_KERNELS_F32_F32_CLAMP_H_

namespace tinyforge::kernels::f32 {

inline float Clamp(float v, float lo, float hi) {
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return v;
}

}  // namespace tinyforge::kernels::f32

#endif  // TINYFORGE_KERNELS_F32_F32_CLAMP_H_
