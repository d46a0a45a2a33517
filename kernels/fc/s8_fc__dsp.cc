// FULLY_CONNECTED for Cortex-M4/M7/M33 (DSP extension). Bit-identical to s8_fc__ref.
//
// Batch 1 (a GEMV, kernels/fc/dsp_fc.h): the input row is widened once to int16 pairs with
// the input offset added; blocks of 4 weight rows (then 2, 1) stream past it, one LDRD of the
// widened input feeding 4 rows (21 instructions per 16 MACs). Requantization: when every
// shift is in [-20, -1] and every multiplier 0 or >= 2^30 (the usual case), the exact
// shortcut of dsp_fc.h (QADD, SMMLAR/SMMLA with the output offset folded in, ASR, SSAT);
// otherwise the general forms of kernels/conv/dsp_gemm.h.
// Batches >= 2: input rows in pairs, widened once, every pair of weight rows streaming past
// them (kernels/conv/dsp_gemm.h: 2 x 2 SMLAD blocks, 1 x 2 for a single row).
// Scratch (fc.inc): two widened rows (batch 1 uses half of it).
#include "kernels/fc/fc.h"

#if defined(__ARM_FEATURE_DSP)

#include <cstddef>

#include "kernels/conv/dsp_gemm.h"
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
// over g groups of the widened input x: acc[5i + j] = bias[j] + row (5i + j) . x, bias
// advancing by bias_step bytes per block (20, or 0 for a shared zero block). Naked: all 14
// registers hold the loop (a0..a4 = r0..r4 for LDM/STM, t/u r5/r6, widened pair r7/r8, x
// r9, p r10, k r11, 3k r12, group count lr); per group 1 LDRD + 5 x (LDR + 2 SXTB16 +
// 2 SMLAD) = 26 instructions per 20 MACs, 16 groups per iteration; the rest sits on the stack.
struct Dot5Args {
  const uint32_t* x;     // 0
  const int8_t* w;       // 4: in: the first row; out: the row after the last block
  int32_t k;             // 8: row stride (bytes)
  int32_t g;             // 12: groups of 4 inputs, >= 0
  const int32_t* bias;   // 16
  int32_t bias_step;     // 20
  int32_t blocks;        // 24: >= 1
  int32_t* acc;          // 28
};
static_assert(offsetof(Dot5Args, acc) == 28, "Dot5Blocks hard-codes the field offsets");

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

__attribute__((naked, noinline)) void Dot5Blocks(Dot5Args* /*args: r0*/) {
  __asm__ volatile(
      "push {r4-r11, lr}\n\t"
      "sub sp, #32\n\t"
      // Frame: [sp] x, [4] g, [8] bias, [12] bias_step, [16] blocks, [20] acc, [24] args,
      // [28] w step from the end of a block's first row to the next block.
      "str r0, [sp, #24]\n\t"
      "ldr r1, [r0, #0]\n\t"
      "str r1, [sp, #0]\n\t"
      "ldr r1, [r0, #16]\n\t"
      "str r1, [sp, #8]\n\t"
      "ldr r1, [r0, #20]\n\t"
      "str r1, [sp, #12]\n\t"
      "ldr r1, [r0, #24]\n\t"
      "str r1, [sp, #16]\n\t"
      "ldr r1, [r0, #28]\n\t"
      "str r1, [sp, #20]\n\t"
      "ldr r10, [r0, #4]\n\t"
      "ldr r11, [r0, #8]\n\t"
      "ldr r1, [r0, #12]\n\t"
      "str r1, [sp, #4]\n\t"
      "add r12, r11, r11, lsl #1\n\t"
      "add r2, r11, r11, lsl #2\n\t"
      "sub r2, r2, r1, lsl #2\n\t"
      "str r2, [sp, #28]\n"
      "5:\n\t"
      "ldrd r5, r6, [sp, #8]\n\t"
      "ldmia r5, {r0-r4}\n\t"
      "add r5, r5, r6\n\t"
      "str r5, [sp, #8]\n\t"
      "ldr r9, [sp, #0]\n\t"
      "ldr lr, [sp, #4]\n\t"
      "subs lr, lr, #16\n\t"
      "blt 2f\n"
      "1:\n\t" TF_FC5_X16
      "subs lr, lr, #16\n\t"
      "bge 1b\n"
      "2:\n\t"
      "adds lr, lr, #16\n\t"
      "beq 4f\n"
      "3:\n\t" TF_FC5_GROUP
      "subs lr, lr, #1\n\t"
      "bne 3b\n"
      "4:\n\t"
      "ldr r5, [sp, #20]\n\t"
      "stmia r5!, {r0-r4}\n\t"
      "str r5, [sp, #20]\n\t"
      "ldrd r5, r6, [sp, #16]\n\t"  // blocks, (acc: unused)
      "ldr r7, [sp, #28]\n\t"
      "add r10, r10, r7\n\t"
      "subs r5, r5, #1\n\t"
      "str r5, [sp, #16]\n\t"
      "bne 5b\n\t"
      "ldr r0, [sp, #24]\n\t"
      "str r10, [r0, #4]\n\t"
      "add sp, #32\n\t"
      "pop {r4-r11, pc}\n");
}

#undef TF_FC5_ROW
#undef TF_FC5_GROUP
#undef TF_FC5_X4
#undef TF_FC5_X16

alignas(8) constexpr int32_t kZeroBias[5] = {0, 0, 0, 0, 0};

// acc[i] = bias[i] (0 if bias is null) + row i . x for the n rows at w (k inputs, widened x).
// Rows go in blocks of 5 (Dot5Blocks) and 4 (Dot4), as many of 5 as leave a multiple of 4
// (n = 128: 24 x 5 + 2 x 4), then 2 / 1 for what is left (only when n % 4 != 0 and n < 15).
__attribute__((noinline)) void Accumulate(const uint32_t* x, const int8_t* w, int32_t k,
                                          const int32_t* bias, int32_t n, int32_t* acc) {
  const int32_t g = k >> 2;
  const int32_t r = k & 3;
  const int8_t* const w0 = w;
  int32_t* a = acc;
  const int32_t b_step = bias != nullptr ? 1 : 0;
  const int32_t* b = bias != nullptr ? bias : kZeroBias;
  int32_t blocks5 = n / 5;
  blocks5 -= (blocks5 - n) & 3;  // n - 5 * blocks5 = 0 (mod 4)
  if (blocks5 > 0) {
    Dot5Args args{x, w, k, g, b, 20 * b_step, blocks5, a};
    Dot5Blocks(&args);
    w = args.w;
    a += 5 * blocks5;
    b += 5 * b_step * blocks5;
  }
  int32_t left = n - 5 * (blocks5 > 0 ? blocks5 : 0);
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

// Requantization of one output channel: the fast shortcuts (kFastDouble / kFastSingle,
// dsp_fc.h) or dsp_gemm.h's general modes (dsp::kRq*).
constexpr int kFastDouble = 16;
constexpr int kFastSingle = 17;

template <int kMode>
constexpr bool IsFast() {
  return kMode == kFastDouble || kMode == kFastSingle;
}

template <int kMode>
struct Q {
  dfc::FastQ f;
  dsp::ChanQ c;
};

template <int kMode>
inline Q<kMode> MakeQ(int32_t m, int32_t s, int32_t output_offset) {
  Q<kMode> q{};
  if constexpr (IsFast<kMode>()) {
    q.f = dfc::MakeFastQ(m, s, output_offset);
  } else {
    q.c = dsp::MakeChanQ<kMode>(m, s);
  }
  return q;
}

template <int kMode, bool kFull>
inline int8_t Out(int32_t acc, const Q<kMode>& q, int32_t output_offset, int32_t act_min,
                  int32_t act_max) {
  if constexpr (IsFast<kMode>()) {
    int32_t v = __ssat(dfc::FastRequant<kMode == kFastSingle>(acc, q.f), 8);
    if constexpr (!kFull) {
      v = v < act_min ? act_min : v;
      v = v > act_max ? act_max : v;
    }
    return static_cast<int8_t>(v);
  } else {
    return dsp::Finish<kMode, kFull>(acc, q.c, dsp::OutQ{output_offset, act_min, act_max});
  }
}

// Output rows in chunks of kChunk (a multiple of 5): accumulators on the stack, then
// requantized. kPerChannel: one (multiplier, shift) per row, else entry 0 for every row.
constexpr int32_t kChunk = 80;

template <int kMode, bool kFull, bool kPerChannel>
void Gemv(const uint32_t* x, const int8_t* w, const int32_t* bias, int8_t* out, int32_t k,
          int32_t n, const int32_t* mult, const int32_t* shift, int32_t oo, int32_t lo,
          int32_t hi) {
  int32_t acc[kChunk];
  const Q<kMode> qt = MakeQ<kMode>(mult[0], shift[0], oo);
  for (int32_t o = 0; o < n; o += kChunk) {
    const int32_t cnt = n - o < kChunk ? n - o : kChunk;
    Accumulate(x, w + o * k, k, bias != nullptr ? bias + o : nullptr, cnt, acc);
    int8_t* dst = out + o;
    int32_t i = 0;
    if constexpr (kPerChannel) {
      for (; i < cnt; ++i) {
        dst[i] = Out<kMode, kFull>(acc[i], MakeQ<kMode>(mult[o + i], shift[o + i], oo), oo, lo,
                                   hi);
      }
    } else {
      for (; i + 4 <= cnt; i += 4) {
        dst[i] = Out<kMode, kFull>(acc[i], qt, oo, lo, hi);
        dst[i + 1] = Out<kMode, kFull>(acc[i + 1], qt, oo, lo, hi);
        dst[i + 2] = Out<kMode, kFull>(acc[i + 2], qt, oo, lo, hi);
        dst[i + 3] = Out<kMode, kFull>(acc[i + 3], qt, oo, lo, hi);
      }
      for (; i < cnt; ++i) dst[i] = Out<kMode, kFull>(acc[i], qt, oo, lo, hi);
    }
  }
}

template <int kMode, bool kFull>
void GemvCall(const s8_fc_params& p, const uint32_t* x, const int8_t* weights,
              const int32_t* bias, int8_t* output) {
  if (p.per_channel) {
    Gemv<kMode, kFull, true>(x, weights, bias, output, p.in_features, p.out_features,
                             p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max);
  } else {
    Gemv<kMode, kFull, false>(x, weights, bias, output, p.in_features, p.out_features,
                              p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max);
  }
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
    if (p.batches == 1) {
      GemvCall<kMode, kFull>(p, ext, weights, bias, output);
    } else {
      Run<kMode, kFull>(p, input, weights, bias, output, ext);
    }
  }
};

}  // namespace

extern "C" void s8_fc__dsp(const s8_fc_params* params, const int8_t* input, const int8_t* weights,
                           const int32_t* bias, int8_t* output, void* scratch) {
  const s8_fc_params& p = *params;
  const uintptr_t base = (reinterpret_cast<uintptr_t>(scratch) + 7u) & ~uintptr_t{7};
  uint32_t* ext = reinterpret_cast<uint32_t*>(base);
  const int32_t n_q = p.per_channel ? p.out_features : 1;
  if (p.batches == 1) {
    dfc::WidenDense(input, p.in_features, p.input_offset, ext);
    if (dfc::FastOk(p.multiplier, p.shift, n_q)) {
      const bool full = p.act_min == -128 && p.act_max == 127;
      if (p.rounding == TF_ROUNDING_SINGLE) {
        full ? GemvCall<kFastSingle, true>(p, ext, weights, bias, output)
             : GemvCall<kFastSingle, false>(p, ext, weights, bias, output);
      } else {
        full ? GemvCall<kFastDouble, true>(p, ext, weights, bias, output)
             : GemvCall<kFastDouble, false>(p, ext, weights, bias, output);
      }
      return;
    }
  }
  dsp::Dispatch(p.shift, n_q, p.rounding, p.act_min, p.act_max,
                Call{p, input, weights, bias, output, ext});
}

#endif  // __ARM_FEATURE_DSP
