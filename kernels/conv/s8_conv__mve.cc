// CONV_2D for Cortex-M55 (Helium/MVE). Bit-identical to s8_conv__ref.
//
// Every output pixel is a dot product of a "column" of K = k_h * k_w * in_c int8 values with
// each output channel's OHWI weight row. The column is the input pixel itself for unpadded 1x1
// convolutions (pointwise, any stride), otherwise an im2col patch built in scratch (12 pixels at
// a time for K <= 288, 6 above), with taps outside the input set to the input zero point; the
// input offset then enters once per call through a per-channel bias (bias + input_offset *
// sum(w)), also in scratch. Grouped convolutions (rare) run the reference loop (s8_conv__ref).
//
// Patches are built with vector copies: kernel rows of <= 16 contiguous bytes (dilation_w 1,
// k_w * in_c <= 16, e.g. the first convolutions: 10x4x1, 3x3x3) with one predicated load/store
// per row (CopyPatches), rows of whole vectors (k_w * in_c % 16 == 0, e.g. 3x3 over 16/32/64
// channels) with a tail-predicated loop per row (CopyPatchesWide); runs of interior pixels of an
// output row go through one assembly call, border pixels fill the patch with the zero point and
// copy the rows' inside parts (Column).
//
// Dot products by K:
//   K <= 16 (e.g. pointwise 8 -> 16): 4 pixels' columns in registers, one channel per step
//     (SmallK4Rows, mve_gemm.h);
//   K <= 64 with out_c % 4 == 0: input-stationary rows, a tile's columns in one assembly call
//     (SmallKRow_*, K = 24 / 40 without predicated tails);
//   otherwise, with even out_c and the common requantization modes: 3 pixels x 2 channels per
//     block, two blocks per requantization (Tile23_*, a naked assembly function: six VMLADAVA
//     accumulators, 0.125 instructions per MAC in the K loop, three chunks per iteration when
//     K % 48 == 0, no loop for K = 144);
//   leftovers (1-2 pixels of a tile, odd out_c, other requantization modes): 2 x 2 blocks
//     (mve::Tile).
// Scratch (s8_conv_mve_scratch_bytes, conv.h): 12 or 24 * out_c bytes of tables (packed
// bias/multiplier/shift of the K <= 64 paths or Tile23's pair vectors) and 4 * out_c of
// effective bias where there is an input offset -- or none of them where the compiler built
// them into the bias operand (s8_conv_params::lean, docs/decisions.md 98) --,
// s8_conv_mve_patch_pixels(p) * K of patches (none for direct 1x1 convolutions, the in-place
// tile's copy where the call may run in place) and 16 for alignment.
#include "kernels/conv/conv.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include "kernels/conv/mve_conv.h"

extern "C" void s8_conv__mve(const s8_conv_params* params, const int8_t* input,
                             const int8_t* weights, const int32_t* bias, int8_t* output,
                             void* scratch) {
  namespace rq = tinyforge::rq;
  using namespace tinyforge::conv_mve;  // the paths
  // An if-chain with the common case first: 4 instructions per call fewer than a switch
  // over rq_mode.h's numbering.
  const int mode = s8_conv_mve_mode(*params);
  auto* path = s8_conv__mve__perelement;  // kRqSingle
  if (mode == rq::kRqDoubleNeg) {  // the full driver, else --optimize size's
    path = s8_conv__mve__doubleneg != nullptr ? s8_conv__mve__doubleneg
                                              : s8_conv__mve__doubleneg_small;
  } else if (mode == rq::kRqSingleNeg) {
    path = s8_conv__mve__singleneg != nullptr ? s8_conv__mve__singleneg
                                              : s8_conv__mve__singleneg_small;
  } else if (mode == rq::kRqDoubleNonPos) {
    path = s8_conv__mve__doublenonpos;
  } else if (mode == rq::kRqDouble) {
    path = s8_conv__mve__double;
  }
  // Grouped convolutions (mode < 0), and a null bias without an input offset (the scratch
  // holds no effective bias then: s8_conv_mve_scratch_bytes; the compiler always gives one).
  if (mode < 0 || (bias == nullptr && params->input_offset == 0)) path = nullptr;
  if (path == nullptr) {  // (the scratch: __ref's in-place copy, conv.h)
    s8_conv__ref(params, input, weights, bias, output, scratch);
    return;
  }
  path(params, input, weights, bias, output, scratch);
}

#endif  // TF_HAVE_MVE
