// f32 family (kernels/f32), float model layers: every f32_conv / f32_dwconv variant vs
// f32_conv__ref / f32_dwconv__ref, bit for bit (tfv::Compare on floats compares the bits).
// Inputs are multiples of 1/64 up to +-8 (exact products, rounding only in the sums) with
// some subnormal and signed-zero values mixed in (edge cases: all-subnormal inputs).
#include <cstring>

#include "tests/kernels/variants/variant_harness.h"

namespace {

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// kind 0: values k/64 (|k| <= 512) with a few -0.0 and subnormals; kind 1: mostly subnormal.
void FillFloats(tfv::Rng& rng, float* p, int32_t n, int32_t kind) {
  for (int32_t i = 0; i < n; ++i) {
    const int32_t r = rng.Range(0, 99);
    if (kind == 1 || r < 2) {
      p[i] = FromBits(static_cast<uint32_t>(rng.Range(1, 0x7fffff)) |
                      (rng.Chance(50) ? 0x80000000u : 0u));
    } else if (r < 4) {
      p[i] = -0.0f;
    } else {
      p[i] = static_cast<float>(rng.Range(-512, 512)) / 64.0f;
    }
  }
}

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
  p.act_min = rng.Chance(50) ? -FromBits(0x7f800000u) : 0.0f;
  p.act_max = rng.Chance(70) ? FromBits(0x7f800000u) : 6.0f;
  return p;
}

bool RunCase(tfv::Context& ctx, bool depthwise) {
  const int32_t kind = ctx.Edge() ? 1 : 0;
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
  FillFloats(ctx.rng, w, n_w, 0);
  FillFloats(ctx.rng, bias, p.out_c, 0);
  float* want = reinterpret_cast<float*>(ctx.Output(n_out * 4));
  float* got = reinterpret_cast<float*>(ctx.Output(n_out * 4));
  if (want == nullptr || got == nullptr) return false;
  using Fn = void(const f32_conv_params*, const float*, const float*, const float*, float*);
  Fn* ref = depthwise ? &f32_dwconv__ref : &f32_conv__ref;
  ref(&p, x, w, bias, want);
  ctx.Variant(ref)(&p, x, w, bias, got);
  return tfv::Compare(ctx, "output", got, want, n_out);
}

const char* KindName(int32_t) { return "subnormal"; }

}  // namespace

TFV_FAMILY_TEST(f32_conv, 40, KindName) { return RunCase(ctx, false); }
TFV_FAMILY_TEST(f32_dwconv, 40, KindName) { return RunCase(ctx, true); }
