// FULLY_CONNECTED for Cortex-M4/M7/M33 (DSP extension). Bit-identical to s8_fc__ref.
//
// Batch 1 (a GEMV): the input row is widened once to int16 pairs with the input offset added
// (kernels/fc/dsp_fc.h WidenDense: per 4 inputs the words [x0, x2], [x1, x3]). Weight rows
// stream past it in blocks of 5 (Dot5Blocks below, naked asm: one LDRD of the widened pair
// feeds 5 rows, each LDR + SXTB16 + SXTB16 ROR 8 + 2 SMLAD: 26 instructions per 20 MACs) and
// of 4 / 2 / 1 for the rows left over (dsp_fc.h Dot4 / Dot2 / Dot1); with only 1-3 rows the
// input is not widened (DotRaw2 / DotRaw1 add the offset per group). Requantization: when
// every shift is in [-20, -1] and every multiplier is 0 or >= 2^30 (the usual case: real
// scales in [2^-21, 0.5)), the exact shortcut proven in dsp_fc.h (QADD doubles the
// accumulator, SMMLAR / SMMLA with the output offset folded into the addend, ASR, SSAT), done
// inside Dot5Blocks per tensor; a non-trivial activation clamp is applied afterwards 4 bytes
// at a time (SSUB8 / SEL). Other parameters (rare at batch 1) run s8_fc__ref, so that batch 1
// needs no more scratch than the widened row.
// Batches >= 2: input rows in pairs, widened once, every pair of weight rows streaming past
// them (kernels/common/gemm/dsp_gemm.h: 2 x 2 SMLAD blocks, 1 x 2 for a single row).
// Scratch (fc.inc): the widened row at batch 1 (8 bytes per 4 inputs), two interleaved rows
// otherwise.
#include "kernels/fc/fc.h"
#include "kernels/common/isa.h"

#if TF_HAVE_DSP

#include <cstddef>

#include "kernels/common/gemm/dsp_gemm.h"
#include "kernels/fc/dsp_fc.h"

namespace {

namespace dsp = tinyforge::dsp;
namespace dfc = tinyforge::dspfc;

template <int kMode, bool kFull>
void Run(const s8_fc_params& p, const int8_t* input, const int8_t* weights, const int32_t* bias,
         int8_t* output, uint32_t* ext) {
  const int32_t k = p.in_features;
  const dsp::OutQ oq{p.output_offset, p.act_min, p.act_max};
  const int32_t q_step = p.per_channel ? 1 : 0;
  for (int32_t b = 0; b < p.batches; b += 2) {
    const int32_t np = p.batches - b < 2 ? p.batches - b : 2;
    dsp::Widen(input + b * k, k, p.input_offset, ext);
    if (np == 2) dsp::Widen(input + (b + 1) * k, k, p.input_offset, ext + 2);
    dsp::Tile2<kMode, kFull>(ext, np, weights, k, bias, p.multiplier, p.shift, q_step,
                        p.out_features, oq, output + b * p.out_features);
  }
}

// ---- batch 1 ----

// Dot5Blocks: `blocks` blocks of 5 weight rows (w, w + k, ..., w + 4k; then the next 5 rows)
// over g groups of the widened input x, each row's accumulator starting from its bias (bias
// advances by bias_step bytes per block: 20, or 0 for a shared zero block). Mode 0 stores
// the 5 accumulators (int32) at dst; modes 1 / 2 store the 5 outputs (int8, before any
// activation clamp other than [-128, 127]) requantized with dsp_fc.h's double / single
// rounding shortcut: v = SSAT8((SMMLAR(D, m, c) + (D >> 31)) >> e) or SSAT8(SMMLA(D, m, c)
// >> e), D = QADD(acc, acc); per tensor (modes 1 / 2: m, c, e given) or per channel (modes
// 3 / 4: m and shift s loaded per row, e = -s, c = (2 * output_offset + 1) << (e - 1)).
// Naked: all 14 registers hold the dot loop (a0..a4 = r0..r4 for LDM/STM, t/u r5/r6, the
// widened pair r7/r8, x r9, p r10, k r11, 3k r12, group count lr); per group 1 LDRD +
// 5 x (LDR + 2 SXTB16 + 2 SMLAD) = 26 instructions per 20 MACs, 16 groups per iteration.
// Everything else lives in a 56-byte frame; the group loop and the block tail are entered
// through addresses computed once per call (LDR PC).
struct alignas(8) Dot5Args {
  const uint32_t* x;     // 0
  const int8_t* w;       // 4: in: the first row; out: the row after the last block
  int32_t k;             // 8: row stride (bytes)
  int32_t g;             // 12: groups of 4 inputs, >= 0
  const int32_t* bias;   // 16
  int32_t bias_step;     // 20
  int32_t blocks;        // 24: >= 1
  void* dst;             // 28: int32_t[5 * blocks] (mode 0) or int8_t[5 * blocks]
  // 32, 36, 40: modes 1, 2: dfc::FastQ m, c, e; modes 3, 4: the multiplier and shift arrays
  // (from the block's first row on) and 2 * output_offset + 1.
  uint32_t q0, q1, q2;
  int32_t mode;          // 44
};
static_assert(offsetof(Dot5Args, q1) == 36 && offsetof(Dot5Args, mode) == 44,
              "Dot5Blocks hard-codes the field offsets");

#define TF_FC5_ROW(a, addr)                 \
  "ldr r5, " addr "\n\t"                    \
  "sxtb16 r6, r5, ror #8\n\t"               \
  "sxtb16 r5, r5\n\t"                       \
  "smlad " a ", r7, r5, " a "\n\t"          \
  "smlad " a ", r8, r6, " a "\n\t"
#define TF_FC5_GROUP                        \
  "ldrd r7, r8, [r9], #8\n\t"               \
  TF_FC5_ROW("r1", "[r10, r11]")            \
  TF_FC5_ROW("r2", "[r10, r11, lsl #1]")    \
  TF_FC5_ROW("r3", "[r10, r12]")            \
  TF_FC5_ROW("r4", "[r10, r11, lsl #2]")    \
  TF_FC5_ROW("r0", "[r10], #4")
#define TF_FC5_X4 TF_FC5_GROUP TF_FC5_GROUP TF_FC5_GROUP TF_FC5_GROUP
#define TF_FC5_X16 TF_FC5_X4 TF_FC5_X4 TF_FC5_X4 TF_FC5_X4
// Requantize accumulator a to output byte j (m r6, c r7, e lr, dst r8, temp r9).
#define TF_FC5_RQD(a, j)                    \
  "qadd " a ", " a ", " a "\n\t"            \
  "smmlar r9, " a ", r6, r7\n\t"            \
  "add r9, r9, " a ", asr #31\n\t"          \
  "asr r9, r9, lr\n\t"                      \
  "ssat r9, #8, r9\n\t"                     \
  "strb r9, [r8, #" j "]\n\t"
#define TF_FC5_RQS(a, j)                    \
  "qadd " a ", " a ", " a "\n\t"            \
  "smmla r9, " a ", r6, r7\n\t"             \
  "asr r9, r9, lr\n\t"                      \
  "ssat r9, #8, r9\n\t"                     \
  "strb r9, [r8, #" j "]\n\t"
// Per channel: multiplier (into register mr) and shift from the arrays at r5 / r6 (post-
// incremented), 2 * output_offset + 1 in r9; c in r7, e in lr, dst r8.
#define TF_FC5_PCQ(a, mr)                   \
  "ldr " mr ", [r5], #4\n\t"                \
  "ldr r7, [r6], #4\n\t"                    \
  "rsb lr, r7, #0\n\t"                      \
  "mvn r7, r7\n\t"                          \
  "lsl r7, r9, r7\n\t"                      \
  "qadd " a ", " a ", " a "\n\t"
#define TF_FC5_PCD(a, mr, j)                \
  TF_FC5_PCQ(a, mr)                         \
  "smmlar r7, " a ", " mr ", r7\n\t"        \
  "add r7, r7, " a ", asr #31\n\t"          \
  "asr r7, r7, lr\n\t"                      \
  "ssat r7, #8, r7\n\t"                     \
  "strb r7, [r8, #" j "]\n\t"
#define TF_FC5_PCS(a, mr, j)                \
  TF_FC5_PCQ(a, mr)                         \
  "smmla r7, " a ", " mr ", r7\n\t"         \
  "asr r7, r7, lr\n\t"                      \
  "ssat r7, #8, r7\n\t"                     \
  "strb r7, [r8, #" j "]\n\t"

__attribute__((naked, noinline)) void Dot5Blocks(Dot5Args* /*args: r0*/) {
  __asm__ volatile(
      "push {r4-r11, lr}\n\t"
      "sub sp, #56\n\t"
      // Frame: [0] x, [4] loop iterations ceil(g / 16), [8] bias, [12] bias_step, [16] end of
      // dst, [20] dst, [24] args, [28] w step from the end of a block's first row to the next
      // block, [32..40] q0..q2, [44] address of the block tail for the mode, [48]
      // address where the first iteration enters the 16-group loop (so that it runs g % 16
      // groups; 104 bytes per group) or its exit when g = 0, [52] spill (modes 3, 4).
      "str r0, [sp, #24]\n\t"
      "ldr r1, [r0, #0]\n\t"
      "str r1, [sp, #0]\n\t"
      "ldrd r2, r3, [r0, #16]\n\t"
      "strd r2, r3, [sp, #8]\n\t"
      "ldrd r2, r3, [r0, #24]\n\t"  // blocks, dst
      "str r3, [sp, #20]\n\t"
      "ldrd r4, r5, [r0, #32]\n\t"
      "strd r4, r5, [sp, #32]\n\t"
      "ldrd r4, r5, [r0, #40]\n\t"  // e, mode
      "str r4, [sp, #40]\n\t"
      "add r6, r2, r2, lsl #2\n\t"  // 5 * blocks
      "cbnz r5, 10f\n\t"
      "add r6, r3, r6, lsl #2\n\t"  // mode 0: int32 dst
      "adr r7, 6f\n\t"
      "b 12f\n"
      "10:\n\t"
      "add r6, r3, r6\n\t"          // modes 1-4: int8 dst
      "cmp r5, #2\n\t"
      "beq 11f\n\t"
      "bgt 17f\n\t"
      "adr r7, 7f\n\t"
      "b 12f\n"
      "11:\n\t"
      "adr r7, 9f\n\t"
      "b 12f\n"
      "17:\n\t"
      "cmp r5, #3\n\t"
      "bne 18f\n\t"
      "adr r7, 15f\n\t"
      "b 12f\n"
      "18:\n\t"
      "adr r7, 16f\n"
      "12:\n\t"
      "orr r7, r7, #1\n\t"          // Thumb bit: the tail is entered by LDR PC
      "str r7, [sp, #44]\n\t"
      "str r6, [sp, #16]\n\t"
      "ldr r1, [r0, #12]\n\t"       // g
      "ldr r10, [r0, #4]\n\t"
      "ldr r11, [r0, #8]\n\t"
      "add r12, r11, r11, lsl #1\n\t"
      "add r2, r11, r11, lsl #2\n\t"
      "sub r2, r2, r1, lsl #2\n\t"
      "str r2, [sp, #28]\n\t"
      "adds r2, r1, #15\n\t"
      "lsrs r2, r2, #4\n\t"
      "str r2, [sp, #4]\n\t"
      "adr r3, 1f\n\t"
      "ands r4, r1, #15\n\t"
      "beq 13f\n\t"
      "rsb r4, r4, #16\n\t"
      "movs r5, #104\n\t"
      "mla r3, r4, r5, r3\n"
      "13:\n\t"
      "cbnz r1, 14f\n\t"
      "adr r3, 4f\n"
      "14:\n\t"
      "orr r3, r3, #1\n\t"
      "str r3, [sp, #48]\n"
      "5:\n\t"
      "ldrd r5, r6, [sp, #8]\n\t"
      "ldmia r5, {r0-r4}\n\t"
      "add r5, r5, r6\n\t"
      "str r5, [sp, #8]\n\t"
      "ldrd r9, lr, [sp, #0]\n\t"
      "ldr pc, [sp, #48]\n"
      "1:\n\t" TF_FC5_X16
      "subs lr, lr, #1\n\t"
      "bne 1b\n"
      "4:\n\t"
      "ldr r8, [sp, #20]\n\t"
      "ldr pc, [sp, #44]\n"
      "6:\n\t"
      "stmia r8!, {r0-r4}\n\t"
      "b 8f\n"
      "7:\n\t"
      "ldrd r6, r7, [sp, #32]\n\t"
      "ldr lr, [sp, #40]\n\t"
      TF_FC5_RQD("r0", "0") TF_FC5_RQD("r1", "1") TF_FC5_RQD("r2", "2") TF_FC5_RQD("r3", "3")
      TF_FC5_RQD("r4", "4")
      "adds r8, r8, #5\n\t"
      "b 8f\n"
      "15:\n\t"                      // per channel, double rounding
      "ldrd r5, r6, [sp, #32]\n\t"
      "ldr r9, [sp, #40]\n\t"
      "str r4, [sp, #52]\n\t"
      TF_FC5_PCD("r0", "r4", "0") TF_FC5_PCD("r1", "r4", "1") TF_FC5_PCD("r2", "r4", "2")
      TF_FC5_PCD("r3", "r4", "3")
      "ldr r4, [sp, #52]\n\t"
      TF_FC5_PCD("r4", "r0", "4")
      "strd r5, r6, [sp, #32]\n\t"
      "adds r8, r8, #5\n\t"
      "b 8f\n"
      "16:\n\t"                      // per channel, single rounding
      "ldrd r5, r6, [sp, #32]\n\t"
      "ldr r9, [sp, #40]\n\t"
      "str r4, [sp, #52]\n\t"
      TF_FC5_PCS("r0", "r4", "0") TF_FC5_PCS("r1", "r4", "1") TF_FC5_PCS("r2", "r4", "2")
      TF_FC5_PCS("r3", "r4", "3")
      "ldr r4, [sp, #52]\n\t"
      TF_FC5_PCS("r4", "r0", "4")
      "strd r5, r6, [sp, #32]\n\t"
      "adds r8, r8, #5\n\t"
      "b 8f\n"
      "9:\n\t"
      "ldrd r6, r7, [sp, #32]\n\t"
      "ldr lr, [sp, #40]\n\t"
      TF_FC5_RQS("r0", "0") TF_FC5_RQS("r1", "1") TF_FC5_RQS("r2", "2") TF_FC5_RQS("r3", "3")
      TF_FC5_RQS("r4", "4")
      "adds r8, r8, #5\n"
      "8:\n\t"
      "str r8, [sp, #20]\n\t"
      "ldr r7, [sp, #28]\n\t"
      "add r10, r10, r7\n\t"
      "ldr r5, [sp, #16]\n\t"
      "cmp r8, r5\n\t"
      "bne 5b\n\t"
      "ldr r0, [sp, #24]\n\t"
      "str r10, [r0, #4]\n\t"
      "add sp, #56\n\t"
      "pop {r4-r11, pc}\n");
}

#undef TF_FC5_ROW
#undef TF_FC5_GROUP
#undef TF_FC5_X4
#undef TF_FC5_X16
#undef TF_FC5_RQD
#undef TF_FC5_RQS
#undef TF_FC5_PCQ
#undef TF_FC5_PCD
#undef TF_FC5_PCS

alignas(8) constexpr int32_t kZeroBias[5] = {0, 0, 0, 0, 0};

// How many of n rows go in blocks of 5: as many as leave a multiple of 4 (n = 128:
// 24 x 5 + 2 x 4); negative when none can.
inline int32_t Blocks5(int32_t n) {
  const int32_t b5 = n / 5;
  return b5 - ((b5 - n) & 3);
}

// acc[i] = bias[i] (0 if bias is null) + row i . x for the n rows at w (k inputs, widened x):
// Blocks5(n) blocks of 5 rows, then blocks of 4, then 2 / 1 for what is left (only when
// n % 4 != 0 and n < 15).
__attribute__((noinline)) void Accumulate(const uint32_t* x, const int8_t* w, int32_t k,
                                          const int32_t* bias, int32_t n, int32_t* acc) {
  const int32_t g = k >> 2;
  const int32_t r = k & 3;
  const int8_t* const w0 = w;
  int32_t* a = acc;
  const int32_t b_step = bias != nullptr ? 1 : 0;
  const int32_t* b = bias != nullptr ? bias : kZeroBias;
  const int32_t blocks5 = Blocks5(n);
  int32_t left = n;
  if (blocks5 > 0) {
    Dot5Args args{x, w, k, g, b, 20 * b_step, blocks5, a, 0, 0, 0, 0};
    Dot5Blocks(&args);
    w = args.w;
    a += 5 * blocks5;
    b += 5 * b_step * blocks5;
    left -= 5 * blocks5;
  }
  for (; left >= 4; left -= 4) {
    dfc::Dot4(x, w, k, 3 * k, g, b, a[0], a[1], a[2], a[3]);
    w += 4 * k - 4 * g;
    a += 4;
    b += 4 * b_step;
  }
  if (left >= 2) {
    dfc::Dot2(x, w, k, g, b, a[0], a[1]);
    w += 2 * k - 4 * g;
    a += 2;
    b += 2 * b_step;
    left -= 2;
  }
  if (left >= 1) dfc::Dot1(x, w, g, b, a[0]);
  if (r != 0) {
    const uint32_t* xt = x + 2 * g;
    const int8_t* wt = w0 + 4 * g;
    for (int32_t i = 0; i < n; ++i, wt += k) acc[i] += dfc::TailDot(xt, wt, r);
  }
}

// Accumulate for n <= 3 rows straight from the int8 input (no widening).
__attribute__((noinline)) void AccumulateRaw(const int8_t* in, int32_t offset, const int8_t* w,
                                             int32_t k, const int32_t* bias, int32_t n,
                                             int32_t* acc) {
  const int32_t g = k >> 2;
  const int32_t r = k & 3;
  const uint32_t off2 = (static_cast<uint32_t>(offset) & 0xFFFFu) * 0x10001u;
  const int8_t* const w0 = w;
  const int32_t* b = bias != nullptr ? bias : kZeroBias;
  int32_t i = 0;
  if (n >= 2) {
    dfc::DotRaw2(in, w, k, g, off2, b, acc[0], acc[1]);
    w += 2 * k - 4 * g;
    b += bias != nullptr ? 2 : 0;
    i = 2;
  }
  if (i < n) dfc::DotRaw1(in, w, g, off2, b, acc[i]);
  if (r != 0) {
    const int8_t* xt = in + 4 * g;
    const int8_t* wt = w0 + 4 * g;
    for (int32_t j = 0; j < n; ++j, wt += k) {
      int32_t s = 0;
      for (int32_t t = 0; t < r; ++t) s += (xt[t] + offset) * wt[t];
      acc[j] += s;
    }
  }
}

// The input of the batch-1 row dot products: widened (x) or, for n <= 3 rows, raw.
struct Src {
  const uint32_t* x;
  const int8_t* raw;  // non-null: use AccumulateRaw
  int32_t offset;
};

inline void AccumulateSrc(const Src& src, const int8_t* w, int32_t k, const int32_t* bias,
                          int32_t n, int32_t* acc) {
  if (src.raw != nullptr) {
    AccumulateRaw(src.raw, src.offset, w, k, bias, n, acc);
  } else {
    Accumulate(src.x, w, k, bias, n, acc);
  }
}

// out[i] = max(lo, min(hi, out[i])), 4 bytes per SSUB8 / SEL pair.
__attribute__((noinline)) void ClampBytes(int8_t* out, int32_t n, int32_t lo, int32_t hi) {
  const uint32_t lo4 = (static_cast<uint32_t>(lo) & 0xFFu) * 0x01010101u;
  const uint32_t hi4 = (static_cast<uint32_t>(hi) & 0xFFu) * 0x01010101u;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32_t v = dfc::LoadWord(out + i);
    uint32_t t;
    __asm__("ssub8 %[t], %[v], %[lo]\n\t"
            "sel %[v], %[v], %[lo]\n\t"
            "ssub8 %[t], %[hi], %[v]\n\t"
            "sel %[v], %[v], %[hi]"
            : [v] "+r"(v), [t] "=&r"(t)
            : [lo] "r"(lo4), [hi] "r"(hi4)
            : "cc");
    __builtin_memcpy(out + i, &v, 4);
  }
  for (; i < n; ++i) out[i] = static_cast<int8_t>(out[i] < lo ? lo : (out[i] > hi ? hi : out[i]));
}

// Rows are requantized from accumulators in chunks of this many (a multiple of 5; stack).
constexpr int32_t kChunk = 20;

// The fast requantization (dfc::FastRequant, clamp [-128, 127] only) of n rows; q_step 1 per
// channel, 0 per tensor.
template <bool kSingle>
void FastRows(const Src& src, const int8_t* w, const int32_t* bias, int8_t* out, int32_t k,
              int32_t n, const int32_t* mult, const int32_t* shift, int32_t q_step, int32_t oo) {
  int32_t acc[kChunk];
  for (int32_t o = 0; o < n; o += kChunk) {
    const int32_t cnt = n - o < kChunk ? n - o : kChunk;
    AccumulateSrc(src, w + o * k, k, bias != nullptr ? bias + o : nullptr, cnt, acc);
    for (int32_t i = 0; i < cnt; ++i) {
      const int32_t q = (o + i) * q_step;
      const dfc::FastQ fq = dfc::MakeFastQ(mult[q], shift[q], oo);
      out[o + i] = static_cast<int8_t>(__ssat(dfc::FastRequant<kSingle>(acc[i], fq), 8));
    }
  }
}

// Batch 1, fast requantization: with k % 4 == 0, Dot5Blocks requantizes its blocks itself
// and the last rows (n - 5 * Blocks5(n) <= 19) go through FastRows; otherwise (inputs left
// over after the groups of 4, or 1-3 rows) all rows do.
void GemvFast(const s8_fc_params& p, const Src& src, const int8_t* w, const int32_t* bias,
              int8_t* out) {
  const int32_t k = p.in_features;
  const int32_t n = p.out_features;
  const bool single = p.rounding == TF_ROUNDING_SINGLE;
  int32_t done = 0;
  if ((k & 3) == 0 && src.raw == nullptr) {
    const int32_t blocks5 = Blocks5(n);
    if (blocks5 > 0) {
      Dot5Args args{src.x, w, k, k >> 2, bias != nullptr ? bias : kZeroBias,
                    bias != nullptr ? 20 : 0, blocks5, out, 0, 0, 0, 0};
      if (p.per_channel) {
        args.q0 = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p.multiplier));
        args.q1 = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p.shift));
        args.q2 = static_cast<uint32_t>(2 * p.output_offset + 1);
        args.mode = single ? 4 : 3;
      } else {
        const dfc::FastQ q = dfc::MakeFastQ(p.multiplier[0], p.shift[0], p.output_offset);
        args.q0 = static_cast<uint32_t>(q.m);
        args.q1 = static_cast<uint32_t>(q.c);
        args.q2 = static_cast<uint32_t>(q.e);
        args.mode = single ? 2 : 1;
      }
      Dot5Blocks(&args);
      done = 5 * blocks5;
    }
  }
  if (done < n) {
    const int32_t* b = bias != nullptr ? bias + done : nullptr;
    const int32_t q_step = p.per_channel ? 1 : 0;
    const int32_t* m = p.multiplier + done * q_step;
    const int32_t* s = p.shift + done * q_step;
    if (single) {
      FastRows<true>(src, w + done * k, b, out + done, k, n - done, m, s, q_step,
                     p.output_offset);
    } else {
      FastRows<false>(src, w + done * k, b, out + done, k, n - done, m, s, q_step,
                      p.output_offset);
    }
  }
  if (p.act_min != -128 || p.act_max != 127) ClampBytes(out, n, p.act_min, p.act_max);
}

struct Call {
  const s8_fc_params& p;
  const int8_t* input;
  const int8_t* weights;
  const int32_t* bias;
  int8_t* output;
  uint32_t* ext;
  template <int kMode, bool kFull>
  void operator()() const {
    Run<kMode, kFull>(p, input, weights, bias, output, ext);
  }
};

}  // namespace

extern "C" void s8_fc__dsp(const s8_fc_params* params, const int8_t* input, const int8_t* weights,
                           const int32_t* bias, int8_t* output, void* scratch) {
  const s8_fc_params& p = *params;
  const uintptr_t base = (reinterpret_cast<uintptr_t>(scratch) + 7u) & ~uintptr_t{7};
  uint32_t* ext = reinterpret_cast<uint32_t*>(base);
  const int32_t n_q = p.per_channel ? p.out_features : 1;
  // Batch 1 with 1-3 rows reads the input as it is; otherwise it is widened once.
  const bool raw = p.batches == 1 && p.out_features <= 3;
  const Src src{ext, raw ? input : nullptr, p.input_offset};
  if (p.batches == 1) {
    // Requantization outside the fast shortcut's range (a shift outside [-20, -1]: scales
    // >= 0.5 or < 2^-21, rare for a fully connected layer) runs the reference loop, so that
    // batch 1 needs only the dense widened row as scratch (fc.inc).
    if (!dfc::FastOk(p.multiplier, p.shift, n_q)) {
      s8_fc__ref(params, input, weights, bias, output, nullptr);
      return;
    }
    if (!raw) dfc::WidenDense(input, p.in_features, p.input_offset, ext);
    GemvFast(p, src, weights, bias, output);
    return;
  }
  dsp::Dispatch(p.shift, n_q, p.rounding, p.act_min, p.act_max,
                Call{p, input, weights, bias, output, ext});
}

#endif  // TF_HAVE_DSP
