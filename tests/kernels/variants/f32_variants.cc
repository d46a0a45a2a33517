// f32 family (kernels/f32), float model layers: every f32_conv / f32_dwconv / f32_fc variant
// vs f32_conv__ref / f32_dwconv__ref / f32_fc__ref, bit for bit (tfv::Compare on floats
// compares the bits). Random inputs are multiples of 1/64 up to +-8 (exact products, rounding
// only in the sums) with some subnormal and signed-zero values mixed in. Edge kinds:
// subnormal (mostly subnormal inputs), tiny_product (inputs near 2^-63, so products and sums
// fall around FLT_MIN: flushed or kept by the standard mode, kernels/f32/f32_arith.h),
// nan_inf (NaNs of several payloads and signs, infinities), and for f32_conv standard_mode:
// a table of single cases whose bits the standard mode fixes (a subnormal product, a product
// tiny before rounding that IEEE rounds to FLT_MIN, a subnormal sum, default NaN, a subnormal
// clamp bound), checked on __ref and on each variant against the table, not only against
// each other.
#include <cstring>

#include "tests/kernels/variants/variant_harness.h"

namespace {

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

constexpr int32_t kRandom = 0, kSubnormal = 1, kTinyProduct = 2, kNanInf = 3, kTable = 4;
constexpr int32_t kPerKind = 10;  // edge cases per generated kind

int32_t EdgeKind(int32_t edge_index) {
  return edge_index < 3 * kPerKind ? 1 + edge_index / kPerKind : kTable;
}

const char* KindName(int32_t edge_index) {
  static const char* const kNames[] = {"random", "subnormal", "tiny_product", "nan_inf",
                                       "standard_mode"};
  return kNames[EdgeKind(edge_index)];
}

int32_t KindOf(tfv::Context& ctx) { return ctx.Edge() ? EdgeKind(ctx.EdgeIndex()) : kRandom; }

// kRandom / kSubnormal as the header says; kTinyProduct: +-(1 + m / 2^23) * 2^e, e in
// [-66, -60], half the values (the weights' products then reach 2^-132..2^-119); kNanInf: a
// few NaNs and infinities among kRandom's values.
void FillFloats(tfv::Rng& rng, float* p, int32_t n, int32_t kind) {
  static const uint32_t kSpecial[] = {0x7fc00000u, 0xffc00000u, 0x7f812345u, 0xffc54321u,
                                      0x7f800000u, 0xff800000u};
  for (int32_t i = 0; i < n; ++i) {
    const int32_t r = rng.Range(0, 99);
    if (kind == kTinyProduct && r < 50) {
      const uint32_t e = static_cast<uint32_t>(127 + rng.Range(-66, -60));
      p[i] = FromBits((e << 23) | static_cast<uint32_t>(rng.Range(0, 0x7fffff)) |
                      (rng.Chance(50) ? 0x80000000u : 0u));
    } else if (kind == kNanInf && r < 6) {
      p[i] = FromBits(rng.Pick(kSpecial));
    } else if (kind == kSubnormal || r < 2) {
      p[i] = FromBits(static_cast<uint32_t>(rng.Range(1, 0x7fffff)) |
                      (rng.Chance(50) ? 0x80000000u : 0u));
    } else if (r < 4) {
      p[i] = -0.0f;
    } else {
      p[i] = static_cast<float>(rng.Range(-512, 512)) / 64.0f;
    }
  }
}

float RandomActMin(tfv::Rng& rng) { return rng.Chance(50) ? -FromBits(0x7f800000u) : 0.0f; }
float RandomActMax(tfv::Rng& rng) { return rng.Chance(70) ? FromBits(0x7f800000u) : 6.0f; }

// A valid window geometry: every output window overlaps the input (as the compiler emits).
f32_conv_params RandomParams(tfv::Rng& rng, bool depthwise) {
  f32_conv_params p{};
  for (;;) {
    p = f32_conv_params{};
    p.batches = rng.Chance(85) ? 1 : 2;
    p.in_h = rng.Range(1, 10);
    p.in_w = rng.Range(1, 10);
    p.in_c = rng.Range(1, 20);
    p.out_c = depthwise ? p.in_c * (rng.Chance(80) ? 1 : 2) : rng.Range(1, 12);
    p.k_h = rng.Range(1, 4);
    p.k_w = rng.Range(1, 4);
    p.stride_h = rng.Range(1, 2);
    p.stride_w = rng.Range(1, 2);
    p.dilation_h = rng.Chance(80) ? 1 : 2;
    p.dilation_w = rng.Chance(80) ? 1 : 2;
    p.pad_top = rng.Range(0, p.k_h - 1);
    p.pad_left = rng.Range(0, p.k_w - 1);
    const int32_t eh = (p.k_h - 1) * p.dilation_h + 1, ew = (p.k_w - 1) * p.dilation_w + 1;
    const int32_t bottom = rng.Range(0, p.k_h - 1), right = rng.Range(0, p.k_w - 1);
    p.out_h = (p.in_h + p.pad_top + bottom - eh) / p.stride_h + 1;
    p.out_w = (p.in_w + p.pad_left + right - ew) / p.stride_w + 1;
    if (p.in_h + p.pad_top + bottom < eh || p.in_w + p.pad_left + right < ew) continue;
    if (p.out_h < 1 || p.out_w < 1) continue;
    break;
  }
  p.act_min = RandomActMin(rng);
  p.act_max = RandomActMax(rng);
  return p;
}

// One f32_conv of a 1x1x2 input, one 1x1 filter: y = clamp(((0 + x0 * w0) + x1 * w1) + bias).
struct TableCase {
  uint32_t x0, w0, x1, w1, bias, act_min, want;
};
constexpr uint32_t kOne = 0x3f800000u, kMinusOne = 0xbf800000u, kFltMin = 0x00800000u;
constexpr uint32_t kInf = 0x7f800000u, kMinusInf = 0xff800000u, kNan = 0x7fc00000u;
const TableCase kTableCases[] = {
    {0x00000001u, kOne, 0, 0, 0, kMinusInf, 0},              // subnormal input (IEEE: 2^-149)
    {0x1c800000u, 0x19800000u, 0, 0, 0, kMinusInf, 0},       // 2^-70 * 2^-60 (IEEE: 2^-146)
    {0x3f7fffffu, kFltMin, 0, 0, 0, kMinusInf, 0},           // tiny before rounding (IEEE: FLT_MIN)
    {0x20000000u, 0x20000000u, 0, 0, 0, kMinusInf, kFltMin}, // 2^-63 * 2^-63 = FLT_MIN: kept
    {kFltMin, kOne, 0, 0, 0, kMinusInf, kFltMin},            // FLT_MIN * 1: kept
    {0x00800001u, kOne, kFltMin, kMinusOne, 0, kMinusInf, 0},  // sum 2^-149 (IEEE: kept)
    {0x00c00000u, kOne, kFltMin, kMinusOne, 0, kMinusInf, 0},  // sum FLT_MIN / 2
    {0, 0, 0, 0, 0x00000003u, kMinusInf, 0},                 // subnormal bias
    {0x7f812345u, kOne, 0, 0, 0, kMinusInf, kNan},           // signalling NaN with payload
    {0xffc54321u, kOne, 0, 0, 0, kMinusInf, kNan},           // negative quiet NaN with payload
    {0, kInf, 0, 0, 0, kMinusInf, kNan},                     // 0 * inf (x86: 0xffc00000)
    {kInf, kOne, kInf, kMinusOne, 0, kMinusInf, kNan},       // inf - inf
    {0x7f7fffffu, 0x40000000u, 0, 0, 0, kMinusInf, kInf},    // FLT_MAX * 2: inf
    {kMinusOne, kOne, 0, 0, 0, 0x00000001u, 0},              // subnormal clamp bound reads as +0
};
constexpr int32_t kNumTableCases = sizeof(kTableCases) / sizeof(kTableCases[0]);

bool RunTableCase(tfv::Context& ctx) {
  const TableCase& t = kTableCases[ctx.EdgeIndex() - 3 * kPerKind];
  f32_conv_params p{};
  p.batches = p.in_h = p.in_w = p.out_h = p.out_w = p.out_c = p.k_h = p.k_w = 1;
  p.in_c = 2;
  p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
  p.act_min = FromBits(t.act_min);
  p.act_max = FromBits(kInf);
  ctx.Params("x %08lx %08lx w %08lx %08lx bias %08lx act_min %08lx", (unsigned long)t.x0,
             (unsigned long)t.x1, (unsigned long)t.w0, (unsigned long)t.w1,
             (unsigned long)t.bias, (unsigned long)t.act_min);
  const float x[2] = {FromBits(t.x0), FromBits(t.x1)};
  const float w[2] = {FromBits(t.w0), FromBits(t.w1)};
  const float bias = FromBits(t.bias);
  const float want = FromBits(t.want);
  float* ref = reinterpret_cast<float*>(ctx.Output(4));
  float* got = reinterpret_cast<float*>(ctx.Output(4));
  if (ref == nullptr || got == nullptr) return false;
  f32_conv__ref(&p, x, w, &bias, ref);
  ctx.Variant(&f32_conv__ref)(&p, x, w, &bias, got);
  return tfv::Compare(ctx, "__ref vs the table", ref, &want, 1) &&
         tfv::Compare(ctx, "output", got, &want, 1);
}

bool RunCase(tfv::Context& ctx, bool depthwise) {
  const int32_t kind = KindOf(ctx);
  if (kind == kTable) return RunTableCase(ctx);
  const f32_conv_params p = RandomParams(ctx.rng, depthwise);
  ctx.Params("batches %d in %dx%dx%d out %dx%dx%d k %dx%d stride %dx%d dilation %dx%d pad %d,%d",
             (int)p.batches, (int)p.in_h, (int)p.in_w, (int)p.in_c, (int)p.out_h, (int)p.out_w,
             (int)p.out_c, (int)p.k_h, (int)p.k_w, (int)p.stride_h, (int)p.stride_w,
             (int)p.dilation_h, (int)p.dilation_w, (int)p.pad_top, (int)p.pad_left);
  const int32_t n_in = p.batches * p.in_h * p.in_w * p.in_c;
  const int32_t n_w = p.k_h * p.k_w * (depthwise ? p.out_c : p.out_c * p.in_c);
  const int32_t n_out = p.batches * p.out_h * p.out_w * p.out_c;
  float* x = ctx.Alloc<float>(n_in);
  float* w = ctx.Alloc<float>(n_w);
  float* bias = ctx.Alloc<float>(p.out_c);
  if (x == nullptr || w == nullptr || bias == nullptr) return false;
  FillFloats(ctx.rng, x, n_in, kind);
  FillFloats(ctx.rng, w, n_w, kind == kSubnormal ? kRandom : kind);
  FillFloats(ctx.rng, bias, p.out_c, kind == kSubnormal ? kRandom : kind);
  float* want = reinterpret_cast<float*>(ctx.Output(n_out * 4));
  float* got = reinterpret_cast<float*>(ctx.Output(n_out * 4));
  if (want == nullptr || got == nullptr) return false;
  using Fn = void(const f32_conv_params*, const float*, const float*, const float*, float*);
  Fn* ref = depthwise ? &f32_dwconv__ref : &f32_conv__ref;
  ref(&p, x, w, bias, want);
  ctx.Variant(ref)(&p, x, w, bias, got);
  return tfv::Compare(ctx, "output", got, want, n_out);
}

bool RunFcCase(tfv::Context& ctx) {
  const int32_t kind = KindOf(ctx);
  f32_fc_params p{};
  p.batches = ctx.rng.Chance(80) ? 1 : ctx.rng.Range(2, 3);
  p.in_features = ctx.rng.Range(1, 48);
  p.out_features = ctx.rng.Range(1, 40);
  p.act_min = RandomActMin(ctx.rng);
  p.act_max = RandomActMax(ctx.rng);
  ctx.Params("batches %d in %d out %d", (int)p.batches, (int)p.in_features, (int)p.out_features);
  const int32_t n_in = p.batches * p.in_features, n_w = p.out_features * p.in_features;
  const int32_t n_out = p.batches * p.out_features;
  float* x = ctx.Alloc<float>(n_in);
  float* w = ctx.Alloc<float>(n_w);
  float* bias = ctx.Alloc<float>(p.out_features);
  if (x == nullptr || w == nullptr || bias == nullptr) return false;
  FillFloats(ctx.rng, x, n_in, kind);
  FillFloats(ctx.rng, w, n_w, kind == kSubnormal ? kRandom : kind);
  FillFloats(ctx.rng, bias, p.out_features, kind == kSubnormal ? kRandom : kind);
  float* want = reinterpret_cast<float*>(ctx.Output(n_out * 4));
  float* got = reinterpret_cast<float*>(ctx.Output(n_out * 4));
  if (want == nullptr || got == nullptr) return false;
  f32_fc__ref(&p, x, w, bias, want);
  ctx.Variant(&f32_fc__ref)(&p, x, w, bias, got);
  return tfv::Compare(ctx, "output", got, want, n_out);
}

}  // namespace

TFV_FAMILY_TEST(f32_conv, 3 * kPerKind + kNumTableCases, KindName) { return RunCase(ctx, false); }
TFV_FAMILY_TEST(f32_dwconv, 3 * kPerKind, KindName) { return RunCase(ctx, true); }
TFV_FAMILY_TEST(f32_fc, 3 * kPerKind, KindName) { return RunFcCase(ctx); }
