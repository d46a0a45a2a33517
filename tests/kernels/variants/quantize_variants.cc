// quantize family (kernels/quantize): QUANTIZE (float -> int8) and DEQUANTIZE (int8 ->
// float) variants vs __ref. The fast QUANTIZE replaces __ref's division by a product and two
// FMAs (kernels/quantize/quantize_fast.h): the cases aim at where that could differ, values
// on and next to the half-integer grid of x / scale, and at the special values.
#include <cstring>

#include "tests/kernels/variants/variant_harness.h"

namespace {

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// A scale 2^e * (1 + m), e in [lo, hi].
float RandomScale(tfv::Rng& rng, int32_t lo, int32_t hi) {
  const uint32_t mant = static_cast<uint32_t>(rng.Range(0, (1 << 23) - 1));
  return FromBits((static_cast<uint32_t>(127 + rng.Range(lo, hi)) << 23) | mant);
}

enum Kind { kTypical, kGrid, kSpecial, kExtremeScale, kNumKinds };
const char* const kKindNames[kNumKinds] = {"typical", "half_grid", "specials", "extreme_scale"};
constexpr int32_t kCasesPerKind = 24;
const char* EdgeKindName(int32_t e) { return kKindNames[e / kCasesPerKind]; }

float Input(tfv::Rng& rng, float scale, int32_t kind) {
  switch (kind) {
    case kGrid: {  // (k + 1/2) * scale, or an ulp or two beside it
      const float v = (static_cast<float>(rng.Range(-300, 300)) + 0.5f) * scale;
      return FromBits(Bits(v) + static_cast<uint32_t>(rng.Range(-2, 2)));
    }
    case kSpecial: {
      const float specials[] = {0.0f, -0.0f, FromBits(0x7fc00000u), FromBits(0xffc00000u),
                                FromBits(0x7f800000u), FromBits(0xff800000u), 3.4e38f,
                                -3.4e38f, 1e-45f, -1e-45f, 1.17e-38f, 2147483648.0f,
                                -2147483904.0f, 8388608.5f};
      if (rng.Chance(50)) return rng.Pick(specials);
      return FromBits(rng.Next());  // any bit pattern
    }
    default: {  // a typical input range: a few hundred steps of the scale
      const float u = static_cast<float>(rng.Range(-(1 << 20), 1 << 20)) / static_cast<float>(1 << 12);
      return u * scale * (rng.Chance(10) ? 4.0f : 1.0f);
    }
  }
}

}  // namespace

TFV_FAMILY_TEST(quantize, kNumKinds * kCasesPerKind, EdgeKindName) {
  const int32_t kind = ctx.Edge() ? ctx.EdgeIndex() / kCasesPerKind : int32_t{kTypical};
  s8_quantize_params p{};
  p.size = ctx.rng.Chance(30) ? ctx.rng.Range(1, 9) : ctx.rng.Range(1, 700);
  p.zero_point = ctx.rng.Range(-128, 127);
  if (kind == kExtremeScale) {  // beyond the fast path's range, and at its ends
    const int32_t e = ctx.rng.Chance(50) ? ctx.rng.Range(-149, -99) : ctx.rng.Range(99, 127);
    p.scale = e < -126 ? FromBits(1u << (e + 149)) : RandomScale(ctx.rng, e, e);
  } else {
    p.scale = ctx.rng.Chance(30) ? 1.0f / static_cast<float>(ctx.rng.Range(1, 1000))
                                 : RandomScale(ctx.rng, -20, 4);
  }
  float* in = ctx.Alloc<float>(p.size);
  int8_t* want = ctx.Output(p.size);
  int8_t* got = ctx.Output(p.size);
  if (in == nullptr || want == nullptr || got == nullptr) return false;
  for (int32_t i = 0; i < p.size; ++i) in[i] = Input(ctx.rng, p.scale, kind == kExtremeScale ? int32_t{kSpecial} : kind);
  ctx.Params("size %d scale 0x%08lx zero point %d", (int)p.size,
             static_cast<unsigned long>(Bits(p.scale)), (int)p.zero_point);
  s8_quantize__ref(&p, in, want);
  ctx.Variant (&s8_quantize__ref)(&p, in, got);
  return tfv::Compare(ctx, "output", got, want, p.size);
}

TFV_FAMILY_TEST(dequantize) {
  s8_dequantize_params p{};
  p.size = ctx.rng.Chance(30) ? ctx.rng.Range(1, 9) : ctx.rng.Range(1, 700);
  p.zero_point = ctx.rng.Range(-128, 127);
  p.scale = ctx.rng.Chance(10) ? RandomScale(ctx.rng, -126, 120) : RandomScale(ctx.rng, -20, 4);
  int8_t* in = ctx.Alloc<int8_t>(p.size);
  float* want = ctx.Alloc<float>(p.size);
  float* got = ctx.Alloc<float>(p.size);
  if (in == nullptr || want == nullptr || got == nullptr) return false;
  ctx.rng.Fill(in, p.size);
  for (int32_t i = 0; i < p.size; ++i) got[i] = FromBits(0x5A5A5A5Au);
  ctx.Params("size %d scale 0x%08lx zero point %d", (int)p.size,
             static_cast<unsigned long>(Bits(p.scale)), (int)p.zero_point);
  s8_dequantize__ref(&p, in, want);
  ctx.Variant (&s8_dequantize__ref)(&p, in, got);
  return tfv::Compare(ctx, "output", got, want, p.size);
}
