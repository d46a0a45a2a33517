// s8_dwconv__mve__plane_wide_single: s8_dwconv__mve's plane path (mve_plane.inc) for kernels
// of 17 to 64 taps, single rounding: a path linked on demand (kernels/common/paths.h,
// dwconv.inc), by programs with such kernels only.
#include "kernels/common/isa.h"
#include "kernels/dwconv/dwconv.h"

#if TF_HAVE_MVE

#include "kernels/dwconv/mve_plane.inc"

bool tinyforge::dwconv_mve::s8_dwconv__mve__plane_wide_single(const s8_dwconv_params& p,
                                                         const int8_t* input,
                                                         const int8_t* weights,
                                                         const int32_t* bias, int8_t* output,
                                                         void* scratch) {
  return Plane<true, true>(p, input, weights, bias, output, scratch);
}

#endif  // TF_HAVE_MVE
