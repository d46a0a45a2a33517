// SOFTMAX for Cortex-M4/M7/M33 (DSP extension), bit-exact with __ref.
//
// Row max four bytes at a time (SSUB8 sets per-byte GE flags, SEL keeps the larger bytes);
// the rest is the shared fast core (softmax_fast.h: one exp per element, SRDHM as one
// SMULL + rounding add + shift, sign-aware rounding shifts), which is the same gemmlowp
// fixed-point arithmetic as __ref; calls of kSoftmaxTableMinDsp elements or more read the
// exps from the table (softmax_fast.h FillTable), with this file's row loops: the sum four
// elements per iteration, and the outputs four per word, per element LDRSB, LDR (the exp),
// two MOVs and one UMLAL for the rounded product, USAT with the row's shift as an immediate
// (one loop per shift 22..25, the usual rows; larger shifts by register, one LSR more), then
// three ORRs, one EOR and one STR per four.
//   TableRows' q = ((2 s e + 2^31) >> 32 + 2^(k-1)) >> k   (s = 1 / sum, e the exp, k the
//   row's exponent 23..31) is floor((s e + 2^30 + 2^(k+30)) / 2^(31+k)) (a floor of a floor
//   with integer addends), i.e. the high word of s e + 2^30 + 2^(k-2) * 2^32 (below 2^62 +
//   2^61: < 2^31 as a signed word) shifted right by k - 1.
#include "kernels/softmax/softmax.h"
#include "kernels/common/isa.h"
#include "kernels/common/word.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/softmax/softmax_fast.h"

namespace {

using tinyforge::LoadWord;
using tinyforge::dsp::Max4;

inline int32_t RowMax(const int8_t* in, int32_t depth) {
  int32_t c = 1;
  int32_t m = in[0];
  if (depth >= 4) {
    uint32_t m4 = LoadWord(in);
    for (c = 4; c + 4 <= depth; c += 4) m4 = Max4(m4, LoadWord(in + c));
    m4 = Max4(m4, m4 >> 16);  // top bytes junk-free: compared against bytes 0, 1 only
    m4 = Max4(m4, m4 >> 8);
    m = static_cast<int8_t>(m4 & 0xFF);
  }
  for (; c < depth; ++c) m = in[c] > m ? in[c] : m;
  return m;
}

// The Q12 sum of a row's exps (t[x] for the row's inputs), in chunks of kSumChunk with the
// all-zero check between them (softmax_fast.h TableRows).
inline uint32_t RowSum(const int8_t* in, int32_t depth, const int32_t* t) {
  using tinyforge::softmax_fast::kSumAllZero;
  using tinyforge::softmax_fast::kSumChunk;
  using tinyforge::softmax_fast::RescaleQ12;
  uint32_t sum = 0;
  for (int32_t c0 = 0; c0 < depth && sum < kSumAllZero; c0 += kSumChunk) {
    const int32_t end = depth - c0 < kSumChunk ? depth : c0 + kSumChunk;
    int32_t c = c0;
    for (; c + 4 <= end; c += 4) {
      sum += static_cast<uint32_t>(RescaleQ12(t[in[c]])) +
             static_cast<uint32_t>(RescaleQ12(t[in[c + 1]]));
      sum += static_cast<uint32_t>(RescaleQ12(t[in[c + 2]])) +
             static_cast<uint32_t>(RescaleQ12(t[in[c + 3]]));
    }
    for (; c < end; ++c) sum += static_cast<uint32_t>(RescaleQ12(t[in[c]]));
  }
  return sum;
}

template <int kSh>
[[gnu::noinline]] void OutRow(const int8_t* in, int8_t* out, int32_t depth, const int32_t* t,
                              uint32_t s, uint32_t r, uint32_t sh) {
  int32_t quads = depth >> 2;
  if (quads > 0) {
    const uint32_t k30 = uint32_t{1} << 30;
    uint32_t x, lo, hi, q, acc;
#define TFD_SM_EXP                              \
  "ldrsb %[x], [%[in]], #1\n\t"                \
  "ldr %[x], [%[t], %[x], lsl #2]\n\t"         \
  "mov %[lo], %[k30]\n\t"                      \
  "mov %[hi], %[r]\n\t"                        \
  "umlal %[lo], %[hi], %[x], %[s]\n\t"
#define TFD_SM_LOOP(SAT0, SAT)                                                        \
  __asm__ volatile("1:\n\t" TFD_SM_EXP SAT0 TFD_SM_EXP SAT                            \
                   "orr %[acc], %[acc], %[q], lsl #8\n\t" TFD_SM_EXP SAT               \
                   "orr %[acc], %[acc], %[q], lsl #16\n\t" TFD_SM_EXP SAT              \
                   "orr %[acc], %[acc], %[q], lsl #24\n\t"                            \
                   "eor %[acc], %[acc], #0x80808080\n\t"                              \
                   "str %[acc], [%[out]], #4\n\t"                                     \
                   "subs %[n], %[n], #1\n\t"                                          \
                   "bne 1b\n"                                                          \
                   : [in] "+r"(in), [out] "+r"(out), [n] "+r"(quads), [x] "=&r"(x),     \
                     [lo] "=&r"(lo), [hi] "=&r"(hi), [q] "=&r"(q), [acc] "=&r"(acc)      \
                   : [t] "r"(t), [s] "r"(s), [r] "r"(r), [k30] "r"(k30),                \
                     [sh] "i"(kSh > 0 ? kSh : 1), [shr] "r"(sh)                          \
                   : "cc", "memory")
    if (kSh > 0) {
      TFD_SM_LOOP("usat %[acc], #8, %[hi], asr %[sh]\n\t",
                  "usat %[q], #8, %[hi], asr %[sh]\n\t");
    } else {
      TFD_SM_LOOP("lsr %[hi], %[hi], %[shr]\n\tusat %[acc], #8, %[hi]\n\t",
                  "lsr %[hi], %[hi], %[shr]\n\tusat %[q], #8, %[hi]\n\t");
    }
#undef TFD_SM_LOOP
#undef TFD_SM_EXP
  }
  for (int32_t c = 0; c < (depth & 3); ++c) {
    const uint64_t v = uint64_t{s} * static_cast<uint32_t>(t[in[c]]) + (uint64_t{1} << 30) +
                       (uint64_t{r} << 32);
    const uint32_t q = static_cast<uint32_t>(v >> 32) >> sh;
    out[c] = static_cast<int8_t>((q > 255 ? 255 : static_cast<int32_t>(q)) - 128);
  }
}

// Every row through the exp table (softmax_fast.h TableRows' arithmetic).
void TableRowsDsp(const s8_softmax_params& p, const int8_t* input, int8_t* output,
                  int32_t* table) {
  namespace sf = tinyforge::softmax_fast;
  sf::FillTable(p, table);
  const int32_t depth = p.depth;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    int8_t* out = output + r * depth;
    const int32_t* t = sf::TableAt(table, sf::kTableEntries - 1 - RowMax(in, depth));  // t[x]
    const uint32_t sum = RowSum(in, depth, t);
    if (sf::RowIsAllZero(sum)) {
      sf::FillZero(out, depth);
      continue;
    }
    int num_bits_over_unit = 0;
    const uint32_t s = static_cast<uint32_t>(sf::Reciprocal(sum, &num_bits_over_unit));
    const int exponent = num_bits_over_unit + 31 - 8;  // 23 .. 31
    const uint32_t rr = uint32_t{1} << (exponent - 2);
    const uint32_t sh = static_cast<uint32_t>(exponent - 1);
    switch (sh) {
      case 22: OutRow<22>(in, out, depth, t, s, rr, sh); break;
      case 23: OutRow<23>(in, out, depth, t, s, rr, sh); break;
      case 24: OutRow<24>(in, out, depth, t, s, rr, sh); break;
      case 25: OutRow<25>(in, out, depth, t, s, rr, sh); break;
      default: OutRow<0>(in, out, depth, t, s, rr, sh); break;
    }
  }
}

}  // namespace

extern "C" void s8_softmax__dsp(const s8_softmax_params* params, const int8_t* input,
                                int8_t* output, void* scratch) {
  const s8_softmax_params& p = *params;
  if (s8_softmax_table_bytes(p, kSoftmaxTableMinDsp) > 0) {
    TableRowsDsp(p, input, output, static_cast<int32_t*>(scratch));
    return;
  }
  const int32_t depth = p.depth;
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * depth;
    tinyforge::softmax_fast::Row(p, in, output + r * depth, RowMax(in, depth));
  }
}

#endif  // TF_HAVE_DSP
