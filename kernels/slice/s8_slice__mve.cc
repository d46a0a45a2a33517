// SLICE for Cortex-M55 (Helium / MVE), bit-identical to s8_slice__ref: strided_copy_mve.h's
// SliceMve (one run, contiguous rows, else the loop nest of kernels/common/strided_copy.h
// with the vector rows and blocks of strided_copy_mve.h).
#include "kernels/common/isa.h"
#include "kernels/slice/slice.h"

#if TF_HAVE_MVE

#include "kernels/common/strided_copy_mve.h"

extern "C" void s8_slice__mve(const s8_slice_params* params, const int8_t* input,
                              int8_t* output) {
  tinyforge::strided::SliceMve(*params, input, output);
}

#endif  // TF_HAVE_MVE
