// The taps of a window that fall inside the input, for the float layer variants: the valid
// kernel indices of one spatial dim form one range [lo, hi) (the input index grows with the
// kernel index), which __ref finds by testing each tap.
#ifndef TINYFORGE_KERNELS_F32_F32_WINDOW_H_
#define TINYFORGE_KERNELS_F32_F32_WINDOW_H_

#include <cstdint>

namespace tinyforge::kernels::f32 {

// Kernel indices k in [0, taps) with 0 <= start + k * dilation < in: [*lo, *hi), maybe empty.
inline void TapRange(int32_t start, int32_t taps, int32_t dilation, int32_t in, int32_t* lo,
                     int32_t* hi) {
  int32_t l = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  int32_t h = in - start <= 0 ? 0 : (in - start + dilation - 1) / dilation;
  if (h > taps) h = taps;
  if (l > h) l = h;
  *lo = l;
  *hi = h;
}

}  // namespace tinyforge::kernels::f32

#endif  // TINYFORGE_KERNELS_F32_F32_WINDOW_H_
