// layernorm family (kernels/layernorm): every variant vs s8_layernorm__ref. Edge cases:
// short rows of every tail length, constant / two-valued / extreme rows, layer_norm and
// rms_norm, per-channel and broadcast scale/bias, eps 0 and eps up to its limit, scale
// exponents at both ends (shifts left and right of 31); long rows up to the depth limit.
#include "kernels/layernorm/layernorm_limits.h"
#include "tests/kernels/variants/variant_harness.h"

namespace {

constexpr int32_t kNumDepths = 16;
const int32_t kDepths[kNumDepths] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 64, 100, 255, 768};
enum InputKind { kRandom, kExtremes, kConstant, kTwoValues, kNumInputKinds };
enum ParamKind { kTypical, kNoEps, kHugeEps, kExtremeScale, kNumParamKinds };
constexpr int32_t kShortEdgeCases = kNumDepths * kNumInputKinds * kNumParamKinds;
constexpr int32_t kNumLongDepths = 4;
const int32_t kLongDepths[kNumLongDepths] = {1024, 2047, 4096, TF_LIMIT_LAYERNORM_DEPTH};
constexpr int32_t kLongEdgeCases = kNumLongDepths * kNumInputKinds;
constexpr int32_t kEdgeCases = kShortEdgeCases + kLongEdgeCases;
const char* const kKindNames[kNumParamKinds] = {"typical", "no_eps", "huge_eps", "extreme_scale"};
const char* EdgeKindName(int32_t e) {
  return e >= kShortEdgeCases ? "long_rows" : kKindNames[e / (kNumDepths * kNumInputKinds)];
}

void Params(tfv::Rng& rng, s8_layernorm_params& p, int32_t kind) {
  p.rms = rng.Range(0, 1);
  p.input_zero_point = rng.Range(-128, 127);
  uint64_t eps16 = 0;
  p.scale_exp = rng.Range(2, 8);  // weight / out_scale ~ 2 .. 256
  switch (kind) {
    case kNoEps:
      break;
    case kHugeEps:  // up to the limit (eps16 < 2^62)
      eps16 = (uint64_t{static_cast<uint32_t>(rng.Range(0, 0x3FFFFFFF))} << 32) | rng.Next();
      break;
    case kExtremeScale:
      p.scale_exp = rng.Chance(50) ? rng.Range(-32, -20) : rng.Range(20, 32);
      eps16 = rng.Next();
      break;
    default:  // eps / in_scale^2 ~ 0 .. 16, times depth^2 * 2^16
      eps16 = uint64_t{static_cast<uint32_t>(rng.Range(0, 1 << 20))} *
              static_cast<uint64_t>(p.depth) * static_cast<uint64_t>(p.depth);
  }
  p.eps_lo = static_cast<int32_t>(static_cast<uint32_t>(eps16));
  p.eps_hi = static_cast<int32_t>(static_cast<uint32_t>(eps16 >> 32));
}

void FillInput(tfv::Rng& rng, int8_t* in, int32_t n, int32_t depth, int32_t kind) {
  switch (kind) {
    case kExtremes:
      for (int32_t i = 0; i < n; ++i) in[i] = rng.Chance(50) ? 127 : -128;
      break;
    case kConstant:
      for (int32_t i = 0; i < n; i += depth) {
        const int8_t v = static_cast<int8_t>(rng.Range(-128, 127));
        for (int32_t c = 0; c < depth; ++c) in[i + c] = v;
      }
      break;
    case kTwoValues: {  // one value but a few elements one step off (tiny variance)
      const int32_t lo = rng.Range(-128, 126);
      for (int32_t i = 0; i < n; ++i) in[i] = static_cast<int8_t>(lo + (rng.Chance(3) ? 1 : 0));
      break;
    }
    default:
      rng.Fill(in, n);
  }
}

}  // namespace

TFV_FAMILY_TEST(layernorm, kEdgeCases, EdgeKindName) {
  s8_layernorm_params p{};
  int32_t input_kind;
  int32_t param_kind;
  if (ctx.Edge() && ctx.EdgeIndex() >= kShortEdgeCases) {
    const int32_t e = ctx.EdgeIndex() - kShortEdgeCases;
    p.depth = kLongDepths[e % kNumLongDepths];
    p.rows = 1;
    input_kind = e / kNumLongDepths;
    param_kind = kTypical;
  } else if (ctx.Edge()) {
    const int32_t e = ctx.EdgeIndex();
    p.depth = kDepths[e % kNumDepths];
    input_kind = (e / kNumDepths) % kNumInputKinds;
    param_kind = e / (kNumDepths * kNumInputKinds);
    p.rows = p.depth >= 255 ? ctx.rng.Range(1, 3) : ctx.rng.Range(1, 12);
  } else {
    p.depth = ctx.rng.Chance(70) ? ctx.rng.Range(1, 40) : ctx.rng.Range(1, 600);
    p.rows = ctx.rng.Range(1, p.depth > 64 ? 4 : 16);
    input_kind = ctx.rng.Chance(70) ? int32_t{kRandom} : ctx.rng.Range(1, kNumInputKinds - 1);
    param_kind = ctx.rng.Chance(70) ? int32_t{kTypical} : ctx.rng.Range(0, kNumParamKinds - 1);
  }
  Params(ctx.rng, p, param_kind);
  p.per_channel = p.depth > 4096 ? 0 : ctx.rng.Range(0, 1);
  const int32_t channels = p.per_channel ? p.depth : 1;
  const int32_t n = p.rows * p.depth;
  int8_t* in = ctx.Alloc<int8_t>(n);
  int32_t* scale = ctx.Alloc<int32_t>(channels);
  int32_t* bias = ctx.Alloc<int32_t>(channels);
  int8_t* want = ctx.Output(n);
  int8_t* got = ctx.Output(n);
  if (in == nullptr || scale == nullptr || bias == nullptr || want == nullptr || got == nullptr) {
    return false;
  }
  FillInput(ctx.rng, in, n, p.depth, input_kind);
  for (int32_t c = 0; c < channels; ++c) {
    // |scale| mostly near the top (the compiler normalizes the largest to [2^30, 2^31)).
    scale[c] = ctx.rng.Chance(90) ? ctx.rng.Range(-0x7FFFFFFF, 0x7FFFFFFF)
                                  : ctx.rng.Range(-4096, 4096);
    bias[c] = ctx.rng.Chance(90) ? ctx.rng.Range(-(200 << 8), 200 << 8)
                                 : static_cast<int32_t>(ctx.rng.Next());
  }
  // Now and then a bias within 2^16 of either int32 end (the DSP variant folds the rounding
  // constant 2^15 into a broadcast bias only where that cannot overflow).
  if (ctx.rng.Chance(8)) {
    bias[0] = ctx.rng.Chance(50) ? INT32_MAX - ctx.rng.Range(0, 1 << 16)
                                 : INT32_MIN + ctx.rng.Range(0, 1 << 16);
  }
  p.scale = scale;
  p.bias = bias;
  ctx.Params("rows %d depth %d rms %d zp %d eps %08x%08x scale_exp %d per_channel %d input %d",
             (int)p.rows, (int)p.depth, (int)p.rms, (int)p.input_zero_point,
             (unsigned)p.eps_hi, (unsigned)p.eps_lo, (int)p.scale_exp, (int)p.per_channel,
             (int)input_kind);
  s8_layernorm__ref(&p, in, want);
  ctx.Variant (&s8_layernorm__ref)(&p, in, got);
  return tfv::Compare(ctx, "output", got, want, n);
}
