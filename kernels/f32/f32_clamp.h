// The output clamp of the float layer kernels (f32.h): a fused ReLU / ReLU6, -inf..inf for
// none. NaN passes through (both comparisons are false), as in PyTorch's relu. The kernels
// pass the bounds through FlushBits (f32_arith.h) once per call, so the comparisons see no
// subnormal operand and give the same answer in any FPU mode.
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
