// Internal header of s8_conv__mve (Helium): its paths, linked on demand
// (kernels/common/paths.h): the drivers per requantization mode (mve_conv_run.h) and the
// 3 x 2 block routines in assembly (mve_tile23.inc) that they call.
// Only included inside `#if TF_HAVE_MVE` (kernels/common/isa.h).
#ifndef TINYFORGE_KERNELS_CONV_MVE_CONV_H_
#define TINYFORGE_KERNELS_CONV_MVE_CONV_H_

#include <cstddef>
#include <cstdint>

#include "kernels/common/paths.h"
#include "kernels/conv/conv.h"

namespace tinyforge::conv_mve {

// 3 pixels x 2 channels per block: six accumulators, five 16-byte loads per six VMLADAVAs
// (0.125 instructions per MAC in the K loop, against 0.14 for 2 x 2). Blocks go in pairs
// ("hexads": 6 pixels x 2 channels), whose 12 sums are exactly three vectors
// {p c0, p c1, p+1 c0, p+1 c1}, requantized and scattered with the same per-lane constants.
// One call runs every channel pair over every hexad of a tile (and one more block of 3 pixels
// when 3..5 are left); a pair's multipliers, shifts and biases come as three vectors from a
// table built once per call (PairTable: q3, q4 and the bias words), the store offsets and
// clamp bounds stay in q5..q7 for the whole call. The first 16-byte chunk (three with the
// unrolled loop) is peeled with non-accumulating VMLADAVs, the bias added as a vector. A naked
// function: it needs every core register (accumulators r0, r2, r4, r6, r8, r10 -- VMLADAVA
// writes even registers only --, columns r1, r3, r5, weight rows r7, r9, the arguments r11,
// the output r12, the loop lr). Arguments (offsets fixed by the assembly):
struct alignas(16) Tile23Args {
  int32_t t[12];             // #0: the hexad's sums (transfer)
  int32_t bv[4];             // #48: {b0, b1, b0, b1} of the current pair
  int32_t mv[4];             // #64: {m0, m1, m0, m1}
  int32_t sv[4];             // #80: {s0, s1, s0, s1}
  uint32_t oo[4];            // #96: {0, 1, n_out, n_out + 1}
  int32_t mn[4];             // #112: act_min
  int32_t mx[4];             // #128: act_max
  const int8_t* const* c;    // #144: columns of the next block (running)
  const int8_t* const* c0;   // #148: the tile's columns
  int8_t* dst0;              // #152: output of the current pair's first hexad (running)
  int32_t n0;                // #156: hexads (>= 1)
  int32_t n;                 // #160: hexads left (running)
  const int8_t* w0;          // #164: the current pair's weight rows (running)
  const int8_t* w1;          // #168
  int32_t k16;               // #172: K - 16 (elements of the tail-predicated loop)
  int32_t kx3;               // #176: K / 48 - 1 (iterations of the unrolled loop)
  int32_t k2;                // #180: 2 * K
  int32_t off;               // #184: output offset
  int32_t n2;                // #188: 2 * n_out (bytes between pixel pairs' outputs)
  const int32_t* table;      // #192: per pair {m0, m1, m0, m1}, {s0, s1, ..}, {b0, b1, ..}
  int32_t unused[2];         // #196
  int32_t pairs;             // #204: channel pairs left (running, >= 1)
  int32_t tri;               // #208: 1: one more block of 3 pixels after the hexads
};
static_assert(offsetof(Tile23Args, c) == 144 && offsetof(Tile23Args, tri) == 208,
              "Tile23 argument offsets are fixed by its assembly");

// Per rounding (single: single rounding, doubleneg: double rounding, every shift <= -1)
// and K loop: tail-predicated (any K > 16), _x3: three chunks per iteration (K % 48 == 0,
// K >= 96), _u9: no loop (K = 144). Each is a path linked on demand (kernels/common/paths.h;
// one file each, s8_conv__mve_tile23_*.cc), chosen by s8_conv_mve_tile23 (conv.h).
extern "C" {
void s8_conv__mve__tile23_single(Tile23Args* a) TF_PATH_WEAK;
void s8_conv__mve__tile23_single_x3(Tile23Args* a) TF_PATH_WEAK;
void s8_conv__mve__tile23_single_u9(Tile23Args* a) TF_PATH_WEAK;
void s8_conv__mve__tile23_doubleneg(Tile23Args* a) TF_PATH_WEAK;
void s8_conv__mve__tile23_doubleneg_x3(Tile23Args* a) TF_PATH_WEAK;
void s8_conv__mve__tile23_doubleneg_u9(Tile23Args* a) TF_PATH_WEAK;
}

// The routine for a K (> 16) under single rounding or not; null when it is not linked.
inline void (*Tile23Routine(bool single, int32_t k))(Tile23Args*) {
  const int kind = s8_conv_mve_tile23_loop(k);
  if (single) {
    return kind == 3   ? s8_conv__mve__tile23_single_u9
           : kind == 2 ? s8_conv__mve__tile23_single_x3
                       : s8_conv__mve__tile23_single;
  }
  return kind == 3   ? s8_conv__mve__tile23_doubleneg_u9
         : kind == 2 ? s8_conv__mve__tile23_doubleneg_x3
                     : s8_conv__mve__tile23_doubleneg;
}

// The driver per requantization mode (mve_conv_run.h), one path each
// (s8_conv__mve_<mode>.cc), chosen by s8_conv_mve_mode (conv.h); the kernel's signature.
#define TF_CONV_MVE_PATH(name)                                                             \
  void name(const s8_conv_params* params, const int8_t* input, const int8_t* weights, \
            const int32_t* bias, int8_t* output, void* scratch) TF_PATH_WEAK;
extern "C" {
TF_CONV_MVE_PATH(s8_conv__mve__double)
TF_CONV_MVE_PATH(s8_conv__mve__doubleneg)
TF_CONV_MVE_PATH(s8_conv__mve__singleneg)
TF_CONV_MVE_PATH(s8_conv__mve__doublenonpos)
TF_CONV_MVE_PATH(s8_conv__mve__perelement)
// `--optimize size`'s drivers for the two common modes: 2 x 2 blocks only (kSmall,
// s8_conv__mve_doubleneg_small.cc, s8_conv__mve_singleneg_small.cc); the dispatcher takes
// them when the full driver is not linked.
TF_CONV_MVE_PATH(s8_conv__mve__doubleneg_small)
TF_CONV_MVE_PATH(s8_conv__mve__singleneg_small)
}
#undef TF_CONV_MVE_PATH

}  // namespace tinyforge::conv_mve

#endif  // TINYFORGE_KERNELS_CONV_MVE_CONV_H_
