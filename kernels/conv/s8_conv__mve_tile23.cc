// CONV_2D for Cortex-M55 (Helium/MVE): the 3 x 2 block routines of s8_conv__mve in
// assembly (naked functions; interface and register use: kernels/conv/mve_conv.h; the
// driver: s8_conv__mve.cc).
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include "kernels/conv/mve_conv.h"

namespace tinyforge::conv_mve {


// Per call: the fixed vectors; per pair: the pair's table vectors, restart the columns and
// the hexad count, take the pair's output column.
#define TFM_TILE23_PRE                                                                      \
  "push {r4-r11, lr}\n\t"                                                                   \
  "vpush {d8-d15}\n\t"                                                                      \
  "mov r11, r0\n\t"                                                                         \
  "vldrw.32 q5, [r11, #96]\n\t"                                                             \
  "vldrw.32 q6, [r11, #112]\n\t"                                                            \
  "vldrw.32 q7, [r11, #128]\n"                                                              \
  "3:\n\t"                                                                                  \
  "ldr r0, [r11, #192]\n\t"                                                                 \
  "vldrw.32 q3, [r0], #16\n\t"                                                              \
  "vldrw.32 q4, [r0], #16\n\t"                                                              \
  "vldrw.32 q2, [r0], #16\n\t"                                                              \
  "str r0, [r11, #192]\n\t"                                                                 \
  "vstrw.32 q2, [r11, #48]\n\t"                                                             \
  "ldrd r0, r2, [r11, #152]\n\t"                                                            \
  "str r2, [r11, #160]\n\t"                                                                 \
  "mov r12, r0\n\t"                                                                         \
  "adds r0, r0, #2\n\t"                                                                     \
  "str r0, [r11, #152]\n\t"                                                                 \
  "ldr r0, [r11, #148]\n\t"                                                                 \
  "str r0, [r11, #144]\n"                                                                   \
  "1:\n\t"

// A block's columns and weight rows.
#define TFM_TILE23_HEAD                                                                     \
  "ldr r7, [r11, #144]\n\t"                                                                 \
  "ldr r1, [r7], #4\n\t"                                                                    \
  "ldr r3, [r7], #4\n\t"                                                                    \
  "ldr r5, [r7], #4\n\t"                                                                    \
  "str r7, [r11, #144]\n\t"                                                                 \
  "ldrd r7, r9, [r11, #164]\n\t"

// One 16-byte chunk of the three columns against both weight rows (V = vmladav: the first
// chunk, setting the accumulators; vmladava: the others).
#define TFM_TILE23_CHUNK(V)                                                                 \
  "vldrb.8 q0, [r7], #16\n\t"                                                               \
  "vldrb.8 q1, [r9], #16\n\t"                                                               \
  "vldrb.8 q2, [r1], #16\n\t"                                                               \
  V ".s8 r0, q2, q0\n\t"                                                                    \
  V ".s8 r2, q2, q1\n\t"                                                                    \
  "vldrb.8 q2, [r3], #16\n\t"                                                               \
  V ".s8 r4, q2, q0\n\t"                                                                    \
  V ".s8 r6, q2, q1\n\t"                                                                    \
  "vldrb.8 q2, [r5], #16\n\t"                                                               \
  V ".s8 r8, q2, q0\n\t"                                                                    \
  V ".s8 r10, q2, q1\n\t"

// K > 16: the first chunk, then a tail-predicated loop over the other K - 16 bytes.
#define TFM_TILE23_LOOP_TP                                                                  \
  TFM_TILE23_CHUNK("vmladav")                                                               \
  "ldr lr, [r11, #172]\n\t"                                                                 \
  "dlstp.8 lr, lr\n"                                                                        \
  "2:\n\t" TFM_TILE23_CHUNK("vmladava") "letp lr, 2b\n\t"

// K % 48 == 0, K >= 96: the first three chunks, then K / 48 - 1 iterations of three.
#define TFM_TILE23_LOOP_X3                                                                  \
  TFM_TILE23_CHUNK("vmladav") TFM_TILE23_CHUNK("vmladava") TFM_TILE23_CHUNK("vmladava")    \
  "ldr lr, [r11, #176]\n\t"                                                                 \
  "dls lr, lr\n"                                                                            \
  "2:\n\t" TFM_TILE23_CHUNK("vmladava") TFM_TILE23_CHUNK("vmladava")                        \
      TFM_TILE23_CHUNK("vmladava") "le lr, 2b\n\t"

// K == 144 (3x3 over 16 channels): nine chunks, no loop.
#define TFM_TILE23_LOOP_U9                                                                  \
  TFM_TILE23_CHUNK("vmladav") TFM_TILE23_CHUNK("vmladava") TFM_TILE23_CHUNK("vmladava")    \
      TFM_TILE23_CHUNK("vmladava") TFM_TILE23_CHUNK("vmladava")                             \
          TFM_TILE23_CHUNK("vmladava") TFM_TILE23_CHUNK("vmladava")                         \
              TFM_TILE23_CHUNK("vmladava") TFM_TILE23_CHUNK("vmladava")

// The block's six sums into the transfer words at byte offset T.
#define TFM_TILE23_SAVE(T)                                                                  \
  "strd r0, r2, [r11, #" #T "]\n\t"                                                         \
  "strd r4, r6, [r11, #" #T " + 8]\n\t"                                                     \
  "strd r8, r10, [r11, #" #T " + 16]\n\t"

// Sums vector at byte offset T: + bias (q2), requantize (RQ, temp q1), + offset (r6), clamp,
// scatter to r12; r12 += 2 * n_out (r8).
#define TFM_TILE23_VEC(T, RQ)                                                               \
  "vldrw.32 q0, [r11, #" #T "]\n\t"                                                         \
  "vadd.i32 q0, q0, q2\n\t" RQ                                                              \
  "vadd.i32 q0, q0, r6\n\t"                                                                 \
  "vmax.s32 q0, q0, q6\n\t"                                                                 \
  "vmin.s32 q0, q0, q7\n\t"                                                                 \
  "vstrb.32 q0, [r12, q5]\n\t"                                                              \
  "add r12, r12, r8\n\t"

// The hexad's outputs; next hexad; next pair (weight rows 2 K further).
#define TFM_TILE23_TAIL(LOOP, RQ)                                                              \
  "vldrw.32 q2, [r11, #48]\n\t"                                                             \
  "ldr r6, [r11, #184]\n\t"                                                                 \
  "ldr r8, [r11, #188]\n\t"                                                                 \
  TFM_TILE23_VEC(0, RQ) TFM_TILE23_VEC(16, RQ) TFM_TILE23_VEC(32, RQ)                       \
  "ldr r0, [r11, #160]\n\t"                                                                 \
  "subs r0, r0, #1\n\t"                                                                     \
  "str r0, [r11, #160]\n\t"                                                                 \
  "bne 1b\n"                                                                                \
  "ldr r0, [r11, #208]\n\t"                                                                 \
  "cmp r0, #0\n\t"                                                                          \
  "beq 4f\n\t" TFM_TILE23_HEAD LOOP TFM_TILE23_SAVE(0)                                     \
  "vldrw.32 q2, [r11, #48]\n\t"                                                             \
  "ldr r6, [r11, #184]\n\t"                                                                 \
  "ldr r8, [r11, #188]\n\t" TFM_TILE23_VEC(0, RQ)                                           \
  "vldrw.32 q0, [r11, #16]\n\t"                                                             \
  "vadd.i32 q0, q0, q2\n\t" RQ                                                              \
  "vadd.i32 q0, q0, r6\n\t"                                                                 \
  "vmax.s32 q0, q0, q6\n\t"                                                                 \
  "vmin.s32 q0, q0, q7\n\t"                                                                 \
  "movs r0, #2\n\t"                                                                         \
  "vctp.32 r0\n\t"                                                                          \
  "vpst\n\t"                                                                                \
  "vstrbt.32 q0, [r12, q5]\n"                                                               \
  "4:\n\t"                                                                                  \
  "ldrd r7, r9, [r11, #164]\n\t"                                                            \
  "ldr r0, [r11, #180]\n\t"                                                                 \
  "add r7, r7, r0\n\t"                                                                      \
  "add r9, r9, r0\n\t"                                                                      \
  "strd r7, r9, [r11, #164]\n\t"                                                            \
  "ldr r0, [r11, #204]\n\t"                                                                 \
  "subs r0, r0, #1\n\t"                                                                     \
  "str r0, [r11, #204]\n\t"                                                                 \
  "bne 3b\n\t"                                                                              \
  "vpop {d8-d15}\n\t"                                                                       \
  "pop {r4-r11, pc}\n"

// Requantization of q0 (temp q1). Single rounding, every shift <= -1 (see mve_gemm.h):
// VRSHL(VQDMULH(x, m), s). Double rounding, every shift <= -1: VRSHL(h + (h >> 31), s),
// h = VQRDMULH(x, m).
#define TFM_RQ_SINGLE                                                                       \
  "vqdmulh.s32 q0, q0, q3\n\t"                                                              \
  "vrshl.s32 q0, q0, q4\n\t"
#define TFM_RQ_DOUBLENEG                                                                    \
  "vqrdmulh.s32 q0, q0, q3\n\t"                                                             \
  "vshr.s32 q1, q0, #31\n\t"                                                                \
  "vadd.i32 q0, q0, q1\n\t"                                                                 \
  "vrshl.s32 q0, q0, q4\n\t"
#define TFM_TILE23_FN(NAME, LOOP, RQ)                                                       \
  __attribute__((naked, noinline)) void NAME(Tile23Args*) {                                 \
    __asm__ volatile(TFM_TILE23_PRE TFM_TILE23_HEAD LOOP TFM_TILE23_SAVE(0) TFM_TILE23_HEAD \
                         LOOP TFM_TILE23_SAVE(24) TFM_TILE23_TAIL(LOOP, RQ));                     \
  }
TFM_TILE23_FN(Tile23_Single, TFM_TILE23_LOOP_TP, TFM_RQ_SINGLE)
TFM_TILE23_FN(Tile23_Single_x3, TFM_TILE23_LOOP_X3, TFM_RQ_SINGLE)
TFM_TILE23_FN(Tile23_DoubleNeg, TFM_TILE23_LOOP_TP, TFM_RQ_DOUBLENEG)
TFM_TILE23_FN(Tile23_DoubleNeg_x3, TFM_TILE23_LOOP_X3, TFM_RQ_DOUBLENEG)
TFM_TILE23_FN(Tile23_Single_u9, TFM_TILE23_LOOP_U9, TFM_RQ_SINGLE)
TFM_TILE23_FN(Tile23_DoubleNeg_u9, TFM_TILE23_LOOP_U9, TFM_RQ_DOUBLENEG)
#undef TFM_TILE23_FN
#undef TFM_RQ_SINGLE
#undef TFM_RQ_DOUBLENEG
#undef TFM_TILE23_PRE
#undef TFM_TILE23_HEAD
#undef TFM_TILE23_CHUNK
#undef TFM_TILE23_LOOP_TP
#undef TFM_TILE23_LOOP_X3
#undef TFM_TILE23_LOOP_U9
#undef TFM_TILE23_SAVE
#undef TFM_TILE23_VEC
#undef TFM_TILE23_TAIL

}  // namespace tinyforge::conv_mve

#endif  // TF_HAVE_MVE
