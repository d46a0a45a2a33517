// softmax family (kernels/softmax): every variant vs s8_softmax__ref.
#include "tests/kernels/variants/variant_harness.h"

namespace {

constexpr int32_t kNumDepths = 16;
const int32_t kDepths[kNumDepths] = {1, 2, 3, 4, 5, 10, 12, 15, 16, 17, 31, 32, 33, 64, 255, 1000};
enum InputKind { kRandom, kExtremes, kAllEqual, kNarrow, kNumInputKinds, kNearlyEqual };
enum ScaleKind { kTypical, kTiny, kHuge, kMaxShift, kWideDiffMin, kNumScaleKinds };
constexpr int32_t kShortEdgeCases = kNumDepths * kNumInputKinds * kNumScaleKinds;
// Long rows (issue 19): more than 512 near-equal values make the sum of exps reach 512.0,
// where TFLite's output shift is 32 or more (every output -128), and 4,096 equal values
// make it 2^31 in Q12.19 (an int32 sum would wrap). One row each, all equal or within
// 0 .. 2 of each other, typical and tiny scales; __ref itself is checked against a float
// softmax on the host (tests/kernels/softmax_rows_test.cc).
constexpr int32_t kNumLongDepths = 9;
const int32_t kLongDepths[kNumLongDepths] = {511, 512, 513, 520, 1024, 2047, 2048, 4095, 4096};
constexpr int32_t kLongEdgeCases = kNumLongDepths * 2 * 2;
// Calls of 1,100 or more elements (every fast variant reads its exp table, softmax.h): rows
// of 1 to 4,096 elements, as many as that takes; random, all equal and nearly equal inputs;
// the scale kinds in turn (typical, tiny, huge, max shift, wide diff_min).
constexpr int32_t kNumTableDepths = 15;
const int32_t kTableDepths[kNumTableDepths] = {1,  2,   3,   4,   5,   8,    12,  17,
                                               32, 33, 100, 255, 511, 1024, 4096};
constexpr int32_t kTableElements = 1100;
constexpr int32_t kTableEdgeCases = kNumTableDepths * 3;
constexpr int32_t kEdgeCases = kShortEdgeCases + kLongEdgeCases + kTableEdgeCases;
// Edge kinds: the scale kind, or long_rows (test names: kernel_variants.<symbol>.<kind>).
const char* const kKindNames[kNumScaleKinds] = {"typical", "tiny", "huge", "max_shift",
                                                "wide_diff_min"};
const char* EdgeKindName(int32_t e) {
  if (e >= kShortEdgeCases + kLongEdgeCases) return "table";
  return e >= kShortEdgeCases ? "long_rows" : kKindNames[e / (kNumDepths * kNumInputKinds)];
}

// input_multiplier in [2^30, 2^31), left shift as PreprocessSoftmaxScaling gives, diff_min
// = -CalculateInputRadius(5, shift) = -floor(31 * 2^26 / 2^shift).
void Scale(tfv::Rng& rng, s8_softmax_params& p, int32_t kind) {
  p.input_multiplier = rng.Range(1 << 30, 0x7FFFFFFF);
  switch (kind) {
    case kTiny:  // beta * scale tiny: every diff above diff_min
      p.input_left_shift = rng.Range(0, 3);
      break;
    case kHuge:  // beta * scale large: most diffs below diff_min
      p.input_left_shift = rng.Range(24, 31);
      break;
    case kMaxShift:  // capped multiplier (real = 2^31 - 1)
      p.input_multiplier = 0x7FFFFFFF;
      p.input_left_shift = 31;
      break;
    default:  // input scale ~1/16 .. 1/4 for beta 1: shift ~ 22 .. 24
      p.input_left_shift = rng.Chance(80) ? rng.Range(20, 25) : rng.Range(0, 31);
  }
  p.diff_min = -static_cast<int32_t>((int64_t{31} << 26) >> p.input_left_shift);
  // The kernel contract allows any diff_min <= 0; keep diff << shift without overflow.
  if (kind == kWideDiffMin) p.diff_min = p.input_left_shift >= 23 ? p.diff_min : -rng.Range(0, 300);
  else if (kind == kRandom && rng.Chance(5)) p.diff_min = 0;
}

void FillInput(tfv::Rng& rng, int8_t* in, int32_t n, int32_t depth, int32_t kind) {
  switch (kind) {
    case kExtremes:
      for (int32_t i = 0; i < n; ++i) in[i] = rng.Chance(50) ? 127 : -128;
      break;
    case kAllEqual:
      for (int32_t i = 0; i < n; i += depth) {
        const int8_t v = static_cast<int8_t>(rng.Range(-128, 127));
        for (int32_t c = 0; c < depth; ++c) in[i + c] = v;
      }
      break;
    case kNearlyEqual: {  // within 0 .. 2 of each other (long rows and table calls only)
      const int32_t lo = rng.Range(-128, 125);
      rng.Fill(in, n, lo, lo + 2);
      break;
    }
    case kNarrow: {  // logits close together (many equal diffs)
      const int32_t lo = rng.Range(-128, 120);
      rng.Fill(in, n, lo, lo + rng.Range(0, 7));
      break;
    }
    default:
      rng.Fill(in, n);
  }
}

}  // namespace

TFV_FAMILY_TEST(softmax, kEdgeCases, EdgeKindName) {
  s8_softmax_params p{};
  int32_t input_kind;
  if (ctx.Edge() && ctx.EdgeIndex() >= kShortEdgeCases + kLongEdgeCases) {
    const int32_t e = ctx.EdgeIndex() - kShortEdgeCases - kLongEdgeCases;
    p.depth = kTableDepths[e % kNumTableDepths];
    p.rows = (kTableElements + p.depth - 1) / p.depth;
    const int32_t kinds[3] = {kRandom, kAllEqual, kNearlyEqual};
    input_kind = kinds[e / kNumTableDepths];
    Scale(ctx.rng, p, e % kNumScaleKinds);
  } else if (ctx.Edge() && ctx.EdgeIndex() >= kShortEdgeCases) {
    const int32_t e = ctx.EdgeIndex() - kShortEdgeCases;
    p.depth = kLongDepths[e % kNumLongDepths];
    p.rows = 1;
    Scale(ctx.rng, p, (e / kNumLongDepths) % 2 == 0 ? int32_t{kTypical} : int32_t{kTiny});
    input_kind = e / (kNumLongDepths * 2) == 0 ? int32_t{kAllEqual} : int32_t{kNearlyEqual};
  } else if (ctx.Edge()) {
    const int32_t e = ctx.EdgeIndex();
    p.depth = kDepths[e % kNumDepths];
    input_kind = (e / kNumDepths) % kNumInputKinds;
    Scale(ctx.rng, p, e / (kNumDepths * kNumInputKinds));
    p.rows = p.depth >= 255 ? ctx.rng.Range(1, 3) : ctx.rng.Range(1, 40);
  } else {
    p.depth = ctx.rng.Chance(70) ? ctx.rng.Range(1, 20) : ctx.rng.Range(1, 300);
    p.rows = ctx.rng.Range(1, p.depth > 64 ? 4 : 16);
    input_kind = ctx.rng.Chance(70) ? int32_t{kRandom} : ctx.rng.Range(1, kNumInputKinds - 1);
    Scale(ctx.rng, p, ctx.rng.Chance(70) ? int32_t{kTypical} : ctx.rng.Range(0, kNumScaleKinds - 1));
  }
  const int32_t n = p.rows * p.depth;
  int8_t* in = ctx.Alloc<int8_t>(n);
  int8_t* want = ctx.Output(n);
  int8_t* got = ctx.Output(n);
  if (in == nullptr || want == nullptr || got == nullptr) return false;
  FillInput(ctx.rng, in, n, p.depth, input_kind);
  ctx.Params("rows %d depth %d mult %d shift %d diff_min %d input kind %d", (int)p.rows,
             (int)p.depth, (int)p.input_multiplier, (int)p.input_left_shift, (int)p.diff_min,
             (int)input_kind);
  void* scratch = ctx.Scratch(&p);
  s8_softmax__ref(&p, in, want, nullptr);
  ctx.Variant(&s8_softmax__ref)(&p, in, got, scratch);
  return tfv::Compare(ctx, "output", got, want, n);
}
