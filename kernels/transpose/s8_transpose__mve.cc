// TRANSPOSE for Cortex-M55 (Helium / MVE), bit-identical to s8_transpose__ref: the loop
// nest of kernels/common/strided_copy.h with the vector rows of strided_copy_mve.h.
#include "kernels/common/isa.h"
#include "kernels/transpose/transpose.h"

#if TF_HAVE_MVE

#include "kernels/common/strided_copy_mve.h"

extern "C" void s8_transpose__mve(const s8_transpose_params* params, const int8_t* input,
                                  int8_t* output) {
  namespace sc = tinyforge::strided;
  sc::Transpose(*params, input, output, sc::BlockMve, sc::RowMve);
}

#endif  // TF_HAVE_MVE
