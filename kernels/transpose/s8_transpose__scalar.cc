// TRANSPOSE for any core (no SIMD), bit-identical to s8_transpose__ref: the loop nest of
// kernels/common/strided_copy.h, rows four elements per iteration (words written or read whole).
#include "kernels/transpose/transpose.h"
#include "kernels/common/strided_copy.h"

extern "C" void s8_transpose__scalar(const s8_transpose_params* params, const int8_t* input,
                                     int8_t* output) {
  namespace sc = tinyforge::strided;
  sc::Transpose(*params, input, output, sc::BlockScalar, sc::RowScalar);
}
