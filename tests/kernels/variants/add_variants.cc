// add family (kernels/add): every variant vs s8_add__ref.
#include "tests/kernels/variants/variant_harness.h"

namespace {

enum EdgeKind {
  kResnet16,  // ResNet-8 residual add: 32x32x16, elementwise
  kTail,      // element counts around the vector width: 1..9, 15..17
  kScalarB,   // input 2 a single value broadcast over input 1
  kScalarA,   // input 1 a single value
  kChannelB,  // per-channel [C] broadcast over [H, W, C]
  kRowB,      // [H, 1, C] broadcast over [H, W, C] (innermost contiguous)
  kInnerB,    // [H, W, 1] broadcast over [H, W, C] (innermost broadcast)
  kMixed,     // [1, W, 1] + [H, 1, C]
  kInPlace,   // output aliases input 1
  kBigBcast,  // [16, 16, C] with [C] / a scalar / [16, 16, 1]: long broadcasts (lookup tables)
  kNumKinds
};
constexpr int32_t kNumTails = 12;
const int32_t kTails[kNumTails] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33};
constexpr int32_t kEdgeCases = kNumKinds * kNumTails * 2;
// Edge kind names, in EdgeKind order (test names: kernel_variants.<symbol>.<kind>).
const char* const kKindNames[kNumKinds] = {"resnet16",  "tail",       "scalar_b", "scalar_a",
                                           "channel_b", "row_b",      "inner_b",  "mixed",
                                           "in_place",  "big_bcast"};
const char* EdgeKindName(int32_t e) { return kKindNames[e % kNumKinds]; }

struct Case {
  s8_add_params p;
  int32_t dims1[kS8BroadcastMaxDims], dims2[kS8BroadcastMaxDims];
  bool in_place;
};

// Strides of one input from its own dims (right-aligned, as compiler/quant does).
void Fill(Case& c) {
  int32_t sa = 1, sb = 1;
  for (int i = kS8BroadcastMaxDims - 1; i >= 0; --i) {
    const int32_t a = c.dims1[i], b = c.dims2[i];
    c.p.shape.out_dims[i] = a > b ? a : b;
    c.p.shape.in1_strides[i] = a == 1 ? 0 : sa;
    c.p.shape.in2_strides[i] = b == 1 ? 0 : sb;
    sa *= a;
    sb *= b;
  }
}

void RandomQuant(tfv::Rng& rng, s8_add_params& p, bool extremes) {
  if (extremes) {
    const int32_t offs[] = {128, -127, 0};
    p.input1_offset = rng.Pick(offs);
    p.input2_offset = rng.Pick(offs);
    p.output_offset = rng.Chance(50) ? -128 : 127;
  } else {
    p.input1_offset = rng.Range(-127, 128);
    p.input2_offset = rng.Range(-127, 128);
    p.output_offset = rng.Range(-128, 127);
  }
  p.left_shift = rng.Chance(85) ? 20 : rng.Range(0, 22);
  // Input scales s_i / (2 max): one of them exactly 0.5 (shift 0) most of the time.
  const int32_t which = rng.Range(0, 2);
  tfv::RandomMultiplierIn(rng, &p.input1_multiplier, &p.input1_shift, -8, 0);
  tfv::RandomMultiplierIn(rng, &p.input2_multiplier, &p.input2_shift, -8, 0);
  if (which == 0) {
    p.input1_multiplier = 1 << 30;
    p.input1_shift = 0;
  }
  if (which == 1) {
    p.input2_multiplier = 1 << 30;
    p.input2_shift = 0;
  }
  if (rng.Chance(10)) tfv::RandomMultiplierIn(rng, &p.input1_multiplier, &p.input1_shift, -31, 0);
  if (rng.Chance(10)) tfv::RandomMultiplierIn(rng, &p.input2_multiplier, &p.input2_shift, -31, 0);
  if (rng.Chance(85)) {
    tfv::RandomMultiplierIn(rng, &p.output_multiplier, &p.output_shift, -22, -12);
  } else {
    tfv::RandomMultiplierIn(rng, &p.output_multiplier, &p.output_shift, -31, 0);
  }
  tfv::RandomClamp(rng, p.output_offset, &p.act_min, &p.act_max);
  p.rounding = rng.Chance(50) ? TF_ROUNDING_SINGLE : TF_ROUNDING_DOUBLE;
}

Case RandomCase(tfv::Rng& rng) {
  Case c{};
  for (;;) {
    int32_t total = 1;
    for (int i = 0; i < kS8BroadcastMaxDims; ++i) {
      const int32_t d =
          i < kS8BroadcastMaxDims - 3 ? (rng.Chance(80) ? 1 : rng.Range(1, 3)) : rng.Range(1, 12);
      c.dims1[i] = c.dims2[i] = d;
      total *= d;
      if (d > 1 && rng.Chance(15)) (rng.Chance(50) ? c.dims1[i] : c.dims2[i]) = 1;
    }
    if (total <= 3000) break;
  }
  Fill(c);
  RandomQuant(rng, c.p, rng.Chance(10));
  return c;
}

Case EdgeCase(tfv::Rng& rng, int32_t e) {
  Case c{};
  const int32_t kind = e % kNumKinds;
  const int32_t n = kTails[(e / kNumKinds) % kNumTails];
  const int32_t pass = e / (kNumKinds * kNumTails);
  for (int i = 0; i < kS8BroadcastMaxDims; ++i) c.dims1[i] = c.dims2[i] = 1;
  int32_t* d1 = c.dims1 + 3;  // [H, W, C]
  int32_t* d2 = c.dims2 + 3;
  const int32_t h = rng.Range(1, 4), w = rng.Range(1, 4);
  switch (kind) {
    case kResnet16:
      d1[0] = d2[0] = 32;
      d1[1] = d2[1] = pass == 0 ? 32 : 16;
      d1[2] = d2[2] = 16;
      break;
    case kTail:
      d1[2] = d2[2] = n;
      break;
    case kScalarB:
      d1[0] = h;
      d1[1] = w;
      d1[2] = n;
      break;
    case kScalarA:
      d2[0] = h;
      d2[1] = w;
      d2[2] = n;
      break;
    case kChannelB:
      d1[0] = h;
      d1[1] = w;
      d1[2] = n;
      d2[2] = n;
      break;
    case kRowB:
      d1[0] = h;
      d1[1] = w;
      d1[2] = n;
      d2[0] = h;
      d2[2] = n;
      break;
    case kInnerB:
      d1[0] = h;
      d1[1] = w;
      d1[2] = n;
      d2[0] = h;
      d2[1] = w;
      break;
    case kMixed:
      d1[1] = w;
      d2[0] = h;
      d2[2] = n;
      break;
    case kBigBcast:
      d1[0] = d1[1] = 16;
      d1[2] = n;
      if (e % 3 == 0) {
        d2[2] = n;
      } else if (e % 3 == 2) {
        d2[0] = d2[1] = 16;
      }
      break;
    case kInPlace:
      d1[0] = d2[0] = h;
      d1[1] = d2[1] = w;
      d1[2] = d2[2] = n;
      c.in_place = true;
      break;
    default:
      break;
  }
  Fill(c);
  RandomQuant(rng, c.p, (e & 1) != 0);
  c.p.rounding = pass == 0 ? TF_ROUNDING_DOUBLE : TF_ROUNDING_SINGLE;
  return c;
}

int32_t Count(const int32_t* dims) {
  int32_t n = 1;
  for (int i = 0; i < kS8BroadcastMaxDims; ++i) n *= dims[i];
  return n;
}

}  // namespace

TFV_FAMILY_TEST(add, kEdgeCases, EdgeKindName) {
  Case c = ctx.Edge() ? EdgeCase(ctx.rng, ctx.EdgeIndex()) : RandomCase(ctx.rng);
  const s8_add_params& p = c.p;
  const int32_t n1 = Count(c.dims1), n2 = Count(c.dims2), n_out = Count(p.shape.out_dims);
  int8_t* in1 = ctx.Alloc<int8_t>(n1);
  int8_t* in2 = ctx.Alloc<int8_t>(n2);
  int8_t* want = ctx.Output(n_out);
  int8_t* got = ctx.Output(n_out);
  if (in1 == nullptr || in2 == nullptr || want == nullptr || got == nullptr) return false;
  if (ctx.rng.Chance(10)) {
    for (int32_t i = 0; i < n1; ++i) in1[i] = ctx.rng.Chance(50) ? 127 : -128;
    for (int32_t i = 0; i < n2; ++i) in2[i] = ctx.rng.Chance(50) ? 127 : -128;
  } else {
    ctx.rng.Fill(in1, n1);
    ctx.rng.Fill(in2, n2);
  }
  ctx.Params(
      "out [%d,%d,%d,%d,%d,%d] in1 strides [%d,%d,%d,%d,%d,%d] in2 strides [%d,%d,%d,%d,%d,%d] "
      "off %d,%d,%d ls %d m1 %d s1 %d m2 %d s2 %d mo %d so %d act [%d,%d] rounding %d%s",
      (int)p.shape.out_dims[0], (int)p.shape.out_dims[1], (int)p.shape.out_dims[2],
      (int)p.shape.out_dims[3], (int)p.shape.out_dims[4], (int)p.shape.out_dims[5],
      (int)p.shape.in1_strides[0], (int)p.shape.in1_strides[1], (int)p.shape.in1_strides[2],
      (int)p.shape.in1_strides[3], (int)p.shape.in1_strides[4], (int)p.shape.in1_strides[5],
      (int)p.shape.in2_strides[0], (int)p.shape.in2_strides[1], (int)p.shape.in2_strides[2],
      (int)p.shape.in2_strides[3], (int)p.shape.in2_strides[4], (int)p.shape.in2_strides[5],
      (int)p.input1_offset, (int)p.input2_offset, (int)p.output_offset, (int)p.left_shift,
      (int)p.input1_multiplier, (int)p.input1_shift, (int)p.input2_multiplier, (int)p.input2_shift,
      (int)p.output_multiplier, (int)p.output_shift, (int)p.act_min, (int)p.act_max,
      (int)p.rounding, c.in_place ? " in-place" : "");
  s8_add__ref(&p, in1, in2, want);
  if (c.in_place) {
    // out aliases input 1 (same shapes, no broadcast).
    for (int32_t i = 0; i < n_out; ++i) got[i] = in1[i];
    ctx.Variant (&s8_add__ref)(&p, got, in2, got);
  } else {
    ctx.Variant (&s8_add__ref)(&p, in1, in2, got);
  }
  return tfv::Compare(ctx, "output", got, want, n_out);
}
