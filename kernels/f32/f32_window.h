// The taps of a window that fall inside the input, for the float layer variants: the valid
// kernel indices of one spatial dim form one range [lo, hi) (the input index grows with the
// kernel index), which __ref finds by testing each tap.
#ifndef TINYFORGE_KERNELS_F32_F32_WINDOW_H_
#define TINYFORGE_KERNELS_F32_F32_WINDOW_H_

#include <cstdint>

// Forces inlining of the window loop and of the per-pixel lambdas the variants give it, so
// they compile with their caller's options (TF_F32_NO_VECTORIZE on the portable variants)
// and cost no call per output pixel.
#if defined(__GNUC__)
#define TF_F32_INLINE __attribute__((always_inline))
#else
#define TF_F32_INLINE
#endif

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

// One output pixel of a convolution-like layer and the taps of its window that fall inside
// the input: [ky0, ky1) x [kx0, kx1) (tap (0, 0) reads input row iy0, column ix0).
struct Window {
  int32_t b, oy, ox;
  int32_t iy0, ix0;
  int32_t ky0, ky1, kx0, kx1;
};

// Calls f(const Window&) for every output pixel of P (f32_conv_params), batch by batch, row
// by row, in __ref's order. kUnitW: the caller runs only dilation_w 1 (the column range then
// needs no division).
template <bool kUnitW = false, class P, class F>
TF_F32_INLINE inline void ForEachWindow(const P& p, F&& f) {
  const int32_t dilation_w = kUnitW ? 1 : p.dilation_w;
  Window win;
  for (win.b = 0; win.b < p.batches; ++win.b) {
    for (win.oy = 0; win.oy < p.out_h; ++win.oy) {
      win.iy0 = win.oy * p.stride_h - p.pad_top;
      TapRange(win.iy0, p.k_h, p.dilation_h, p.in_h, &win.ky0, &win.ky1);
      for (win.ox = 0; win.ox < p.out_w; ++win.ox) {
        win.ix0 = win.ox * p.stride_w - p.pad_left;
        TapRange(win.ix0, p.k_w, dilation_w, p.in_w, &win.kx0, &win.kx1);
        f(static_cast<const Window&>(win));
      }
    }
  }
}

// The input pixel (NHWC: times the channels for its first element) of the window's first
// tap inside the input, (ky0, kx0); and the output pixel.
template <bool kUnitW = false, class P>
inline int32_t FirstTapPixel(const P& p, const Window& w) {
  return (w.b * p.in_h + w.iy0 + w.ky0 * p.dilation_h) * p.in_w + w.ix0 +
         w.kx0 * (kUnitW ? 1 : p.dilation_w);
}
template <class P>
inline int32_t OutPixel(const P& p, const Window& w) {
  return (w.b * p.out_h + w.oy) * p.out_w + w.ox;
}

}  // namespace tinyforge::kernels::f32

#endif  // TINYFORGE_KERNELS_F32_F32_WINDOW_H_
