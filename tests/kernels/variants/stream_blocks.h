// Streamed calls of the windowed families (conv, dwconv, pools): the runtime runs a streamed
// op as kernel calls on blocks of k output rows, each on the input cut to start at the
// block's first input row (tinyforge/stream.h, StreamBlocks and StreamUnitParams;
// docs/decisions.md 54). A block case calls the variant on one such block (the first, a
// middle or the last, which may be partial; k = 1 is one row, k >= out_h the whole tensor)
// and compares it with the rows of __ref's whole-tensor output.
#ifndef TINYFORGE_TESTS_KERNELS_VARIANTS_STREAM_BLOCKS_H_
#define TINYFORGE_TESTS_KERNELS_VARIANTS_STREAM_BLOCKS_H_

#include <cstdint>

#include "tinyforge/stream.h"

namespace tfv {

struct BlockCase {
  int32_t rows = 0;   // output rows per call; 0: not a block case
  int32_t which = 0;  // 0 the first block, 1 a middle one, 2 the last
};

template <class P>
struct BlockCall {
  P unit;              // the call's parameters
  int32_t in_offset;   // bytes into the whole input where the call's input starts
  int32_t out_offset;  // bytes into the whole output where its rows belong
  int32_t out_bytes;   // bytes it writes
};

// `rows`: the op's ConvRows / PoolRows.
template <class P>
BlockCall<P> MakeBlockCall(const P& p, const tinyforge::rt::StreamGeometry& rows, BlockCase b) {
  const tinyforge::rt::StreamGeometry g = tinyforge::rt::StreamBlocks(rows, b.rows);
  const int32_t u = b.which == 0 ? 0 : (b.which == 2 ? g.units - 1 : g.units / 2);
  BlockCall<P> call{tinyforge::rt::StreamUnitParams(p, g, u), 0, 0, 0};
  call.in_offset = static_cast<int32_t>(tinyforge::rt::StreamLo(g, u)) * rows.in_unit_bytes;
  call.out_offset = u * g.out_unit_bytes;
  call.out_bytes = static_cast<int32_t>(tinyforge::rt::StreamUnitBytes(g, u));
  return call;
}

// The block case of edge case index e (kinds cycle through the rows and the blocks):
// k in {1, 2, 3, whole} x {first, middle, last}.
inline BlockCase BlockOfEdge(int32_t e) {
  const int32_t ks[] = {1, 2, 3, 1 << 20};
  return {ks[(e / 3) % 4], e % 3};
}

}  // namespace tfv

#endif  // TINYFORGE_TESTS_KERNELS_VARIANTS_STREAM_BLOCKS_H_
