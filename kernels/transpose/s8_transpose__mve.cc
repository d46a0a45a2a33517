// TRANSPOSE for Cortex-M55 (Helium / MVE), bit-identical to s8_transpose__ref:
// strided_copy_mve.h's TransposeMve (a swap of the last two dims with a short side by
// scatters or gathers, else the loop nest of kernels/common/strided_copy.h with the vector
// rows and blocks of strided_copy_mve.h).
#include "kernels/common/isa.h"
#include "kernels/transpose/transpose.h"

#if TF_HAVE_MVE

#include "kernels/common/strided_copy_mve.h"

extern "C" void s8_transpose__mve(const s8_transpose_params* params, const int8_t* input,
                                  int8_t* output) {
  tinyforge::strided::TransposeMve(*params, input, output);
}

#endif  // TF_HAVE_MVE
