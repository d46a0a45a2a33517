// mean family (kernels/mean): every mean / sum and reduce_max variant vs s8_mean__ref /
// s8_reduce_max__ref, on the [outer, reduce_size, inner] views the compiler makes.
#include "tests/kernels/variants/variant_harness.h"

namespace {

// Inner sizes around the lane counts the variants use (4 per word, 8/16 per vector, 32-lane
// passes; the Helium variant's 1, 2, 3 or 4 vectors per pass: 8, 9, 16, 17, 24, 25) and
// reduce sizes around the int16 chunk (256 rows) and 16-byte vectors.
const int32_t kEdgeInner[] = {1, 2, 3, 4, 5, 7, 8, 9, 10, 15, 16, 17, 24, 25, 31, 32, 33, 64, 65};
constexpr int32_t kNumEdgeInner = sizeof(kEdgeInner) / sizeof(kEdgeInner[0]);
enum EdgeKind {
  kGlobalKws,    // DS-CNN global pool: 25x5 rows
  kGlobalSmall,  // 7x7 rows
  kLong,         // 257 and 300 rows: more than one int16 chunk
  kShort,        // 1..17 rows (vector tails for inner 1)
  kOuter,        // outer 3
  kFewRows,      // 25 rows (SqueezeNet's 5x5 class maps) and 1 row (a 1x1 map)
  kNumKinds
};
constexpr int32_t kEdgeCases = kNumKinds * kNumEdgeInner * 2;
const char* const kKindNames[kNumKinds] = {"global_kws", "global_small", "long", "short",
                                           "outer", "few_rows"};
const char* EdgeKindName(int32_t e) { return kKindNames[e % kNumKinds]; }

void Shape(tfv::Context& ctx, int32_t* outer, int32_t* reduce, int32_t* inner) {
  if (!ctx.Edge()) {
    *outer = ctx.rng.Chance(80) ? 1 : ctx.rng.Range(2, 4);
    *reduce = ctx.rng.Chance(20) ? ctx.rng.Range(200, 600) : ctx.rng.Range(1, 64);
    *inner = ctx.rng.Chance(25) ? 1 : ctx.rng.Range(1, 80);
    // Many outputs of few rows each (NCHW-like global means): the Helium variant's gathers.
    if (*inner == 1 && ctx.rng.Chance(40)) *outer = ctx.rng.Range(4, 70);
    while (*outer * *reduce * *inner > 40000) *reduce = *reduce / 2 + 1;
    return;
  }
  const int32_t e = ctx.EdgeIndex();
  const int32_t kind = e % kNumKinds;
  const int32_t pass = e / (kNumKinds * kNumEdgeInner);
  *inner = kEdgeInner[(e / kNumKinds) % kNumEdgeInner];
  *outer = 1;
  switch (kind) {
    case kGlobalKws:
      *reduce = 125;
      break;
    case kGlobalSmall:
      *reduce = 49;
      break;
    case kLong:
      *reduce = pass == 0 ? 257 : 300;
      break;
    case kShort:
      *reduce = ctx.rng.Range(1, 17);
      break;
    case kFewRows:
      *reduce = pass == 0 ? 25 : 1;
      break;
    default:
      *outer = 3;
      *reduce = pass == 0 ? 5 : 33;
      break;
  }
}

void FillInput(tfv::Rng& rng, int8_t* in, int32_t n) {
  switch (rng.Range(0, 6)) {
    case 0:  // int16 lane limits
      for (int32_t i = 0; i < n; ++i) in[i] = -128;
      break;
    case 1:
      for (int32_t i = 0; i < n; ++i) in[i] = 127;
      break;
    default:
      rng.Fill(in, n);
  }
}

// Random input for p's outer x reduce_size x inner elements, the reference and the variant
// under test on it, compared.
template <class P>
bool RunAndCompare(tfv::Context& ctx, const P& p, void (*ref)(const P*, const int8_t*, int8_t*)) {
  const int32_t n_in = p.outer * p.reduce_size * p.inner, n_out = p.outer * p.inner;
  int8_t* input = ctx.Alloc<int8_t>(n_in);
  int8_t* want = ctx.Output(n_out);
  int8_t* got = ctx.Output(n_out);
  if (input == nullptr || want == nullptr || got == nullptr) return false;
  FillInput(ctx.rng, input, n_in);
  ref(&p, input, want);
  ctx.Variant(ref)(&p, input, got);
  return tfv::Compare(ctx, "output", got, want, n_out);
}

bool RunMean(tfv::Context& ctx) {
  s8_mean_params p{};
  Shape(ctx, &p.outer, &p.reduce_size, &p.inner);
  p.input_zero_point = ctx.rng.Range(-128, 127);
  p.output_zero_point = ctx.rng.Range(-128, 127);
  tfv::RandomMultiplier(ctx.rng, &p.multiplier, &p.shift);
  // Half the cases in [-17, 0], the shifts of __dsp's short single-rounding path (a global
  // mean over a few rows folds 1 / count into them).
  if (ctx.rng.Chance(50)) p.shift = -ctx.rng.Range(0, 17);
  // Some small positive shifts (a mean over few rows into a finer output scale): the
  // Helium variant's vector single-rounding step while x << shift fits int32.
  if (ctx.rng.Chance(20)) p.shift = ctx.rng.Range(1, 16);
  p.rounding = ctx.rng.Range(0, 1);
  ctx.Params("outer %d reduce %d inner %d zp %d/%d mult %d shift %d rounding %d", (int)p.outer,
             (int)p.reduce_size, (int)p.inner, (int)p.input_zero_point,
             (int)p.output_zero_point, (int)p.multiplier, (int)p.shift, (int)p.rounding);
  return RunAndCompare(ctx, p, &s8_mean__ref);
}

bool RunReduceMax(tfv::Context& ctx) {
  s8_reduce_max_params p{};
  Shape(ctx, &p.outer, &p.reduce_size, &p.inner);
  ctx.Params("outer %d reduce %d inner %d", (int)p.outer, (int)p.reduce_size, (int)p.inner);
  return RunAndCompare(ctx, p, &s8_reduce_max__ref);
}

}  // namespace

TFV_FAMILY_TEST(mean, kEdgeCases, EdgeKindName) { return RunMean(ctx); }

TFV_FAMILY_TEST(reduce_max, kEdgeCases, EdgeKindName) { return RunReduceMax(ctx); }
