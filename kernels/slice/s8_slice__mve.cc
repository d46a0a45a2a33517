// SLICE for Cortex-M55 (Helium / MVE), bit-identical to s8_slice__ref: the loop nest of
// kernels/common/strided_copy.h with the vector rows of strided_copy_mve.h.
#include "kernels/common/isa.h"
#include "kernels/slice/slice.h"

#if TF_HAVE_MVE

#include "kernels/common/strided_copy_mve.h"

extern "C" void s8_slice__mve(const s8_slice_params* params, const int8_t* input,
                              int8_t* output) {
  namespace sc = tinyforge::strided;
  const sc::Plan plan = sc::Merged(sc::MakeSlicePlan(*params));
  const int8_t* first = input + sc::SliceOffset(*params);
  if (plan.n[5] < sc::kShortRow) {  // short rows: blocks through an offset table
    sc::Blocks blocks;
    if (sc::MakeBlocks(plan.n, plan.si, &blocks)) {
      sc::ForEachBlock(blocks, first, output, sc::BlockMve);
      return;
    }
  }
  sc::ForEachRow(plan, first, output, sc::RowMve);
}

#endif  // TF_HAVE_MVE
