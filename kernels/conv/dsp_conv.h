// Internal header of s8_conv__dsp (Cortex-M4/M7/M33): the interface of the fast 2 x 2 block
// routines in assembly (s8_conv__dsp_tile.cc) that the C++ driver (s8_conv__dsp.cc) calls.
// Only included inside `#if TF_HAVE_DSP` (kernels/common/isa.h).
#ifndef TINYFORGE_KERNELS_CONV_DSP_CONV_H_
#define TINYFORGE_KERNELS_CONV_DSP_CONV_H_

#include <cstdint>

namespace tinyforge::conv_dsp {

// A fast or slow channel's table entry: e | index << 8 (e = -shift for fast channels).
using Chan = uint32_t;

// ---- The fast 2 x 2 block loop in assembly -------------------------------------------------
// GCC spills most of a C++ version (the dot product alone needs 14 registers). One routine
// per (rounding, clamp) runs every fast channel pair (table entries 2i, 2i + 1; an odd count
// gets a duplicate of its last entry) over the tile's pixel pairs.
// Per channel pair (~45 instructions + 7.5 per group): m, 2 * bias, c, output pointers into
// the stack frame; the two weight rows widened into wbuf, group by group in the columns'
// layout ([A x0x2, A x1x3, B x0x2, B x1x3]; the K % 4 tail group from the table's tail words).
// Per 2 x 2 block: one LDM of wbuf and the accumulator inits, then per group of 4 inputs
// LDM (the two pixels' column words) + LDM (the weight words) + 8 SMLAD: 10 instructions for
// 16 MACs, unrolled 8 groups deep (a computed entry for G % 8, 3 instructions of loop control
// per 8 groups); per channel one LDM of m, c, e, o, out_c, lo, hi and 4 or 5 instructions per
// output (header comment) + STRB.
struct TileArgs {
  const Chan* chan;      // first fast entry
  const Chan* chan_end;  // past the last (even count)
  const uint32_t* c;     // the tile's first pixel pair columns
  const uint32_t* c_end; // past the last complete pixel pair
  int8_t* out;           // output of the tile's first pixel, channel 0
  const int8_t* weights;
  int32_t k;
  const uint32_t* tails;  // 2 words per table entry, or null when K % 4 == 0
  const Chan* tab;        // the table start (tails index)
  const int32_t* mult;
  const int32_t* bias;    // a zero word when the call has no bias
  uint32_t bias_mask;     // 0 without bias, else ~0: bias[index & mask]
  int32_t off2p1;         // 2 * output_offset + 1: c = (off2p1 << e) >> 1
  uint32_t* wbuf;         // 16 * ceil(K / 4) bytes, word aligned
  int32_t g, out_c, lo, hi;
};
static_assert(sizeof(TileArgs) == 72 && sizeof(Chan) == 4, "asm offsets");

}  // namespace tinyforge::conv_dsp

// One routine per (rounding, clamp): double / single rounding, full int8 range / clamp.
extern "C" {
void tf_conv_dsp_tile_dbl_full(const tinyforge::conv_dsp::TileArgs* a);
void tf_conv_dsp_tile_dbl_clamp(const tinyforge::conv_dsp::TileArgs* a);
void tf_conv_dsp_tile_sgl_full(const tinyforge::conv_dsp::TileArgs* a);
void tf_conv_dsp_tile_sgl_clamp(const tinyforge::conv_dsp::TileArgs* a);
}

#endif  // TINYFORGE_KERNELS_CONV_DSP_CONV_H_
