// TRANSPOSE for Cortex-M55 (Helium / MVE), bit-identical to s8_transpose__ref: the loop
// nest of kernels/common/strided_copy.h with the vector rows of strided_copy_mve.h.
#include "kernels/common/isa.h"
#include "kernels/transpose/transpose.h"

#if TF_HAVE_MVE

#include "kernels/common/strided_copy_mve.h"

extern "C" void s8_transpose__mve(const s8_transpose_params* params, const int8_t* input,
                                  int8_t* output) {
  namespace sc = tinyforge::strided;
  const sc::Plan plan = sc::Merged(sc::MakePlan(*params));
  if (plan.n[5] < sc::kShortRow) {  // short rows: blocks through an offset table
    sc::Blocks blocks;
    int32_t n[kS8TransposeMaxDims], si[kS8TransposeMaxDims];
    sc::TransposeLoops(*params, n, si);
    if (sc::MakeBlocks(n, si, &blocks)) {
      sc::ForEachBlock(blocks, input, output, sc::BlockMve);
      return;
    }
  }
  sc::ForEachRow(plan, input, output, sc::RowMve);
}

#endif  // TF_HAVE_MVE
