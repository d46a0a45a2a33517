// s8_dwconv__dsp's path linked on demand (kernels/common/paths.h; dwconv.inc): the lanes
// path for any kernel but 3x3 undilated (s8_dwconv_dsp_lanes), in s8_dwconv__dsp_any.cc.
// Only included inside `#if TF_HAVE_DSP` (kernels/common/isa.h).
#ifndef TINYFORGE_KERNELS_DWCONV_DSP_DWCONV_H_
#define TINYFORGE_KERNELS_DWCONV_DSP_DWCONV_H_

#include <cstdint>

#include "kernels/common/paths.h"
#include "kernels/dwconv/dwconv.h"

namespace tinyforge::dwconv_dsp {

extern "C" {
void s8_dwconv__dsp__any(const s8_dwconv_params& p, const int8_t* input, const int8_t* weights,
                         const int32_t* bias, int8_t* output) TF_PATH_WEAK;
}

}  // namespace tinyforge::dwconv_dsp

#endif  // TINYFORGE_KERNELS_DWCONV_DSP_DWCONV_H_
