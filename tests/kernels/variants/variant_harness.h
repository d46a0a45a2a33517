// Variant test harness: every variant of a kernel family (kernels/<family>/<family>.inc)
// against the family's portable __ref, on seeded random parameters and edge cases.
// Runs on the host (ctest `kernel_variants`: ref vs scalar) and as firmware on every board
// (tests/kernels/test_variants_on_target.py: dsp variants on an386/an505, mve on an547).
//
// Writing a family test (one file <family>_variants.cc per family, picked up by the glob):
//
//   #include "tests/kernels/variants/variant_harness.h"
//   // op name as in the .inc (TF_KERNEL(op, ...)); optional second argument: the number
//   // of edge cases, run after the random cases with ctx.Edge() / ctx.EdgeIndex(); optional
//   // third: `const char* EdgeKindName(int32_t edge_index)`, the kind of each edge case.
//   TFV_FAMILY_TEST(conv, kNumEdgeCases, EdgeKindName) {
//     s8_conv_params p = ctx.Edge() ? EdgeParams(ctx.EdgeIndex()) : RandomParams(ctx.rng);
//     ctx.Params("in %dx%dx%d ...", (int)p.in_h, ...);   // printed on failure
//     int8_t* in = ctx.Alloc<int8_t>(n_in);  ctx.rng.Fill(in, n_in);
//     int8_t* want = ctx.Output(n_out);   int8_t* got = ctx.Output(n_out);
//     s8_conv__ref(&p, in, w, bias, want, nullptr);
//     ctx.Variant(&s8_conv__ref)(&p, in, w, bias, got, ctx.Scratch(&p));
//     return tfv::Compare(ctx, "output", got, want, n_out);
//   }
//
// The harness calls the body once per case and per variant (every non-ref variant of the op
// compiled into this build), reseeding ctx.rng from (seed, case index) before each case, so a
// case is reproducible on its own. Allocations come from a static arena reset per case; each
// buffer has canary bytes on both sides, checked after the body returns. Output() buffers are
// pre-filled with alternating junk (0x5A / 0xA5) so an element a variant never writes shows
// up as a mismatch. Scratch(&p) allocates what the variant's .inc line asks for (junk-filled,
// canaried) and returns nullptr when it asks for 0 bytes.
//
// Results are reported per (variant, kind): "random" for the random cases, else the edge
// kind EdgeKindName names (one line each, so a failure names what broke); ctest registers one
// test per (variant, kind) (`kernel_variants --list`, tests/kernels/variants/CMakeLists.txt)
// and tests/kernels/test_variants_on_target.py one pytest per (board, variant, kind).
//
// printf note: int32_t is `long` on arm-none-eabi; cast to int for %d.
#ifndef TINYFORGE_TESTS_KERNELS_VARIANTS_VARIANT_HARNESS_H_
#define TINYFORGE_TESTS_KERNELS_VARIANTS_VARIANT_HARNESS_H_

#include <cstdarg>
#include <cstddef>
#include <cstdint>

#include "kernels/kernels.h"

namespace tfv {

// xorshift64* seeded through splitmix64; deterministic on every target.
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    state = z != 0 ? z : 0x2545F4914F6CDD1Dull;
  }
  uint32_t Next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return static_cast<uint32_t>((state * 0x2545F4914F6CDD1Dull) >> 32);
  }
  // Uniform in [lo, hi], inclusive (lo <= hi).
  int32_t Range(int32_t lo, int32_t hi) {
    const uint64_t span = static_cast<uint64_t>(static_cast<int64_t>(hi) - lo) + 1;
    return static_cast<int32_t>(lo + static_cast<int64_t>((Next() * span) >> 32));
  }
  bool Chance(int32_t percent) { return Range(0, 99) < percent; }
  // Picks one of n values.
  template <typename T, size_t N>
  T Pick(const T (&values)[N]) {
    return values[Range(0, static_cast<int32_t>(N) - 1)];
  }
  void Fill(int8_t* p, int32_t n) {
    for (int32_t i = 0; i < n; ++i) p[i] = static_cast<int8_t>(Next() >> 24);
  }
  // Fill with values in [lo, hi].
  void Fill(int8_t* p, int32_t n, int32_t lo, int32_t hi) {
    for (int32_t i = 0; i < n; ++i) p[i] = static_cast<int8_t>(Range(lo, hi));
  }
  void FillInt32(int32_t* p, int32_t n, int32_t lo, int32_t hi) {
    for (int32_t i = 0; i < n; ++i) p[i] = Range(lo, hi);
  }
};

// A valid quantized multiplier (multiplier in [2^30, 2^31) or 0, shift in [-31, 30]) for a
// real scale 2^(shift - 31) * multiplier with shift in [shift_lo, shift_hi].
inline void RandomMultiplierIn(Rng& rng, int32_t* multiplier, int32_t* shift, int32_t shift_lo,
                               int32_t shift_hi) {
  const int32_t kind = rng.Range(0, 15);
  if (kind == 0) {
    *multiplier = 1 << 30;  // exactly 0.5 * 2^shift: ties everywhere
  } else if (kind == 1) {
    *multiplier = 0x7FFFFFFF;
  } else {
    *multiplier = rng.Range(1 << 30, 0x7FFFFFFF);
  }
  *shift = rng.Range(shift_lo, shift_hi);
}

// Typical layer scales (shift -12..0, i.e. real scale ~2^-13..1) most of the time, with the
// extremes of the valid range (tiny: shift -31; large: shift up to +30, where accumulators
// overflow and wrap like TFLite's) and multiplier 0 now and then.
inline void RandomMultiplier(Rng& rng, int32_t* multiplier, int32_t* shift) {
  const int32_t kind = rng.Range(0, 99);
  if (kind < 80) {
    RandomMultiplierIn(rng, multiplier, shift, -12, 0);
  } else if (kind < 88) {
    RandomMultiplierIn(rng, multiplier, shift, -31, -12);
  } else if (kind < 96) {
    RandomMultiplierIn(rng, multiplier, shift, 0, 8);
  } else if (kind < 98) {
    RandomMultiplierIn(rng, multiplier, shift, 8, 30);
  } else {
    *multiplier = 0;
    *shift = rng.Range(-31, 30);
  }
}

// Per-channel arrays of n multipliers. all_same: one random pair repeated.
inline void RandomMultipliers(Rng& rng, int32_t* multiplier, int32_t* shift, int32_t n) {
  for (int32_t i = 0; i < n; ++i) RandomMultiplier(rng, &multiplier[i], &shift[i]);
}

// n per-channel multipliers from one shift band the GEMM kernels treat apart (the case's
// `mult_kind`): 1 tiny scales (shift -31..-20), 2 left shifts (1..30), 3 the usual band
// (-10..-4), 4 the smallest right shifts (-4..-1), anything else RandomMultiplier's mix.
inline void MultipliersOfKind(Rng& rng, int32_t kind, int32_t* multiplier, int32_t* shift,
                              int32_t n) {
  static constexpr int32_t kBand[5][2] = {{0, 0}, {-31, -20}, {1, 30}, {-10, -4}, {-4, -1}};
  for (int32_t o = 0; o < n; ++o) {
    if (kind >= 1 && kind <= 4) {
      RandomMultiplierIn(rng, &multiplier[o], &shift[o], kBand[kind][0], kBand[kind][1]);
    } else {
      RandomMultiplier(rng, &multiplier[o], &shift[o]);
    }
  }
}

// A random activation clamp [act_min, act_max] within [-128, 127]: none, relu-like, relu6-like
// or arbitrary (possibly a single value).
inline void RandomClamp(Rng& rng, int32_t output_offset, int32_t* act_min, int32_t* act_max) {
  switch (rng.Range(0, 3)) {
    case 0:
      *act_min = -128;
      *act_max = 127;
      break;
    case 1:
      *act_min = output_offset;
      *act_max = 127;
      break;
    case 2: {
      *act_min = output_offset;
      const int32_t hi = output_offset + rng.Range(0, 255);
      *act_max = hi > 127 ? 127 : hi;
      break;
    }
    default: {
      const int32_t a = rng.Range(-128, 127), b = rng.Range(-128, 127);
      *act_min = a < b ? a : b;
      *act_max = a < b ? b : a;
    }
  }
}

// Output extent of one spatial axis of a windowed op (conv, dwconv, pool: dilation 1) with
// explicit padding; 0 when the window does not fit.
inline int32_t OutSize(int32_t in, int32_t k, int32_t stride, int32_t dilation, int32_t pad_before,
                       int32_t pad_after) {
  const int32_t eff = (k - 1) * dilation + 1;
  const int32_t span = in + pad_before + pad_after - eff;
  return span < 0 ? 0 : span / stride + 1;
}

// SAME padding for one axis: out = ceil(in / stride), pad_before = floor(total / 2).
inline void Same(int32_t in, int32_t k, int32_t stride, int32_t dilation, int32_t* out,
                 int32_t* pad) {
  const int32_t eff = (k - 1) * dilation + 1;
  *out = (in + stride - 1) / stride;
  int32_t total = (*out - 1) * stride + eff - in;
  if (total < 0) total = 0;
  *pad = total / 2;
}

// Random input / output offsets and activation clamp of a kernel's params (fields
// input_offset, output_offset, act_min, act_max). extremes: offsets at the ends of their
// ranges (input offset 0 among them when extreme_zero_input); otherwise the input offset is 0
// with probability zero_input_percent %.
template <typename P>
void RandomQuant(Rng& rng, P& p, bool extremes, int32_t zero_input_percent,
                 bool extreme_zero_input = true) {
  if (extremes) {
    const int32_t in_offsets[] = {128, -127, 0};
    const int32_t in_offsets_nonzero[] = {128, -127};
    const int32_t out_offsets[] = {-128, 127};
    p.input_offset = extreme_zero_input ? rng.Pick(in_offsets) : rng.Pick(in_offsets_nonzero);
    p.output_offset = rng.Pick(out_offsets);
  } else {
    p.input_offset = rng.Chance(zero_input_percent) ? 0 : rng.Range(-127, 128);
    p.output_offset = rng.Range(-128, 127);
  }
  RandomClamp(rng, p.output_offset, &p.act_min, &p.act_max);
}

class Context;
using TestFn = bool (*)(Context&);
using EdgeKindFn = const char* (*)(int32_t edge_index);

// One kernel variant compiled into this build (from the family .inc files).
struct VariantInfo {
  const char* op;        // "conv"
  const char* symbol;    // "s8_conv__mve"
  const char* isa;       // "ref" | "scalar" | "dsp" | "mve"
  void (*fn)();          // the kernel, type-erased
  int32_t (*scratch_bytes)(const void* params);  // the .inc scratch expression
};

class Context {
 public:
  Rng rng{0};
  uint64_t seed = 0;
  int32_t case_index = 0;  // 0 .. case_count + edge_count - 1
  int32_t case_count = 0;  // random cases; edge cases follow
  int32_t edge_count = 0;
  EdgeKindFn edge_kind = nullptr;  // the family's edge kind names (nullptr: all "edge")
  const VariantInfo* variant = nullptr;

  bool Edge() const { return case_index >= case_count; }
  int32_t EdgeIndex() const { return case_index - case_count; }
  // "random", or the family's name for this edge case's kind.
  const char* Kind() const {
    return !Edge() ? "random" : (edge_kind != nullptr ? edge_kind(EdgeIndex()) : "edge");
  }
  const char* op() const { return variant->op; }
  const char* symbol() const { return variant->symbol; }

  // The variant under test, typed like the given reference function.
  template <typename F>
  F* Variant(F* /*ref*/) const {
    return reinterpret_cast<F*>(variant->fn);
  }

  // Arena allocation (aligned to 16, canaries both sides), reset before every case.
  // Returns nullptr and records a failure when the arena is exhausted.
  void* AllocBytes(int32_t bytes, uint8_t fill);
  template <typename T>
  T* Alloc(int32_t count) {
    return static_cast<T*>(AllocBytes(count * static_cast<int32_t>(sizeof(T)), 0));
  }
  // An output buffer pre-filled with junk (alternates between calls).
  int8_t* Output(int32_t count) {
    junk_toggle_ = !junk_toggle_;
    return static_cast<int8_t*>(AllocBytes(count, junk_toggle_ ? 0x5A : 0xA5));
  }
  // Scratch for the variant under test as its .inc line asks (nullptr for 0 bytes).
  template <typename P>
  void* Scratch(const P* params) {
    const int32_t n = variant->scratch_bytes(params);
    return n > 0 ? AllocBytes(n, 0xC3) : nullptr;
  }

  // Describes the current case's parameters (printf format); printed with any failure.
  void Params(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
  // Reports a failure (printf format) with op, variant, case, seed and params; returns false.
  bool Fail(const char* fmt, ...) __attribute__((format(printf, 2, 3)));

  // --- used by variant_main.cc ---
  void BeginCase(int32_t index);
  bool CheckCanaries();
  int32_t failures = 0;

 private:
  bool junk_toggle_ = false;
};

// Compares n elements; on mismatch reports the first differing index, both values and the
// number of differing elements, and returns false.
bool Compare(Context& ctx, const char* what, const int8_t* got, const int8_t* want, int32_t n);
bool Compare(Context& ctx, const char* what, const int16_t* got, const int16_t* want, int32_t n);
bool Compare(Context& ctx, const char* what, const int32_t* got, const int32_t* want, int32_t n);
bool Compare(Context& ctx, const char* what, const float* got, const float* want, int32_t n);

// Registry (static constructors in the family files).
struct FamilyTest {
  const char* op;
  TestFn fn;
  int32_t edge_count;
  EdgeKindFn edge_kind;
  FamilyTest* next;
};
int Register(FamilyTest* test);

// Test data shared by the weighted families (conv, dwconv, fc). Full-range int8 values, or
// (one time in ten) only the extremes -128 / 127, which stress the accumulators.
inline void FillStress(Rng& rng, int8_t* p, int32_t n) {
  if (rng.Chance(10)) {
    for (int32_t i = 0; i < n; ++i) p[i] = rng.Chance(50) ? 127 : -128;
  } else {
    rng.Fill(p, n);
  }
}
// An int32 bias of kind 1 (|b| <= 2^16, typical) or 2 (|b| <= 2^24, large); kind 0 = none.
inline void FillBias(Rng& rng, int32_t* bias, int32_t n, int32_t kind) {
  if (bias == nullptr || kind == 0) return;
  const int32_t b = kind == 1 ? (1 << 16) : (1 << 24);
  rng.FillInt32(bias, n, -b, b);
}

}  // namespace tfv

#define TFV_CAT2(a, b) a##b
#define TFV_CAT(a, b) TFV_CAT2(a, b)
#define TFV_FAMILY_TEST_3(op, edges, kinds)                                            \
  static bool TFV_CAT(tfv_test_, op)(::tfv::Context & ctx);                            \
  static ::tfv::FamilyTest TFV_CAT(tfv_entry_, op){#op, &TFV_CAT(tfv_test_, op), (edges), \
                                                   (kinds), nullptr};                  \
  static const int TFV_CAT(tfv_registered_, op) __attribute__((unused)) =             \
      ::tfv::Register(&TFV_CAT(tfv_entry_, op));                                       \
  static bool TFV_CAT(tfv_test_, op)(::tfv::Context & ctx)
#define TFV_FAMILY_TEST_2(op, edges) TFV_FAMILY_TEST_3(op, edges, nullptr)
#define TFV_FAMILY_TEST_1(op) TFV_FAMILY_TEST_3(op, 0, nullptr)
#define TFV_GET_MACRO(_1, _2, _3, NAME, ...) NAME
// TFV_FAMILY_TEST(op), TFV_FAMILY_TEST(op, edge_case_count) or
// TFV_FAMILY_TEST(op, edge_case_count, edge_kind_fn) { body using ctx }
#define TFV_FAMILY_TEST(...)                                                        \
  TFV_GET_MACRO(__VA_ARGS__, TFV_FAMILY_TEST_3, TFV_FAMILY_TEST_2, TFV_FAMILY_TEST_1, \
                unused)(__VA_ARGS__)

#endif  // TINYFORGE_TESTS_KERNELS_VARIANTS_VARIANT_HARNESS_H_
