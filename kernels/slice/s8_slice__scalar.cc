// SLICE for any core (no SIMD), bit-identical to s8_slice__ref: the loop nest of
// kernels/common/strided_copy.h (rows along the last dim, four elements per iteration).
#include "kernels/common/strided_copy.h"
#include "kernels/slice/slice.h"

extern "C" void s8_slice__scalar(const s8_slice_params* params, const int8_t* input,
                                 int8_t* output) {
  namespace sc = tinyforge::strided;
  sc::Slice(*params, input, output, sc::BlockScalar, sc::RowScalar);
}
