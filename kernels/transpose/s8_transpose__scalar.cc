// TRANSPOSE for any core (no SIMD), bit-identical to s8_transpose__ref: the loop nest of
// kernels/common/strided_copy.h, rows four elements per iteration (words written or read whole).
#include "kernels/transpose/transpose.h"
#include "kernels/common/strided_copy.h"

extern "C" void s8_transpose__scalar(const s8_transpose_params* params, const int8_t* input,
                                     int8_t* output) {
  namespace sc = tinyforge::strided;
  const sc::Plan plan = sc::Merged(sc::MakePlan(*params));
  if (plan.n[5] < sc::kShortRow) {  // short rows: blocks through an offset table
    sc::Blocks blocks;
    int32_t n[kS8TransposeMaxDims], si[kS8TransposeMaxDims];
    sc::TransposeLoops(*params, n, si);
    if (sc::MakeBlocks(n, si, &blocks)) {
      sc::ForEachBlock(blocks, input, output, sc::BlockScalar);
      return;
    }
  }
  sc::ForEachRow(plan, input, output, sc::RowScalar);
}
