// Internal header of s8_dwconv__mve (Helium): the requantization of 4 lanes its paths share
// (kernels/common/mve_requant.h), and the paths the dispatcher (s8_dwconv__mve.cc) chooses between, one file each:
//   s8_dwconv__mve__plane    s8_dwconv__mve_plane.cc    kernels of up to 16 taps (gather +
//                                                       VMLAV per output; mve_plane.inc),
//                                                       double rounding
//   s8_dwconv__mve__plane_single  s8_dwconv__mve_plane_single.cc  the same, single rounding
//   s8_dwconv__mve__plane_wide(_single)  s8_dwconv__mve_plane_wide(_single).cc  kernels of 17
//                                        to 64 taps (a gather + VMLAV per 16 taps)
//   s8_dwconv__mve__general  s8_dwconv__mve_general.cc  anything else (4 output channels per
//                                                       vector)
// Only included inside `#if TF_HAVE_MVE` (kernels/common/isa.h).
#ifndef TINYFORGE_KERNELS_DWCONV_MVE_DWCONV_H_
#define TINYFORGE_KERNELS_DWCONV_MVE_DWCONV_H_

#include <arm_mve.h>

#include <cstdint>

#include "kernels/common/mve_requant.h"
#include "kernels/common/paths.h"
#include "kernels/dwconv/dwconv.h"

namespace tinyforge::dwconv_mve {

// Requantization of 4 lanes: kernels/common/mve_requant.h.
using namespace tinyforge::mve_rq;  // NOLINT(build/namespaces): the paths' shared helpers

// The paths, linked on demand (kernels/common/paths.h; dwconv.inc): the plane path, one per
// rounding and per kernel size (up to 16 taps; "wide": 17 to 64) (scratch:
// s8_dwconv_mve_scratch_bytes) returns false, having done nothing, when the plan says the
// kernel does not fit it (or there is no scratch); the plan is made there, not by the
// dispatcher: passing it across the call cost 30 instructions per op. The general path takes
// any kernel, no scratch.
extern "C" {
bool s8_dwconv__mve__plane(const s8_dwconv_params& p, const int8_t* input,
                           const int8_t* weights, const int32_t* bias, int8_t* output,
                           void* scratch) TF_PATH_WEAK;
bool s8_dwconv__mve__plane_single(const s8_dwconv_params& p, const int8_t* input,
                                  const int8_t* weights, const int32_t* bias, int8_t* output,
                                  void* scratch) TF_PATH_WEAK;
bool s8_dwconv__mve__plane_wide(const s8_dwconv_params& p, const int8_t* input,
                                const int8_t* weights, const int32_t* bias, int8_t* output,
                                void* scratch) TF_PATH_WEAK;
bool s8_dwconv__mve__plane_wide_single(const s8_dwconv_params& p, const int8_t* input,
                                       const int8_t* weights, const int32_t* bias,
                                       int8_t* output, void* scratch) TF_PATH_WEAK;
void s8_dwconv__mve__general(const s8_dwconv_params& p, const int8_t* input,
                             const int8_t* weights, const int32_t* bias,
                             int8_t* output) TF_PATH_WEAK;
}

}  // namespace tinyforge::dwconv_mve

#endif  // TINYFORGE_KERNELS_DWCONV_MVE_DWCONV_H_
