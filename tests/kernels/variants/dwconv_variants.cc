// dwconv family (kernels/dwconv): every variant vs s8_dwconv__ref.
#include <cstring>

#include "tests/kernels/variants/stream_blocks.h"
#include "tests/kernels/variants/variant_harness.h"
#include "tinyforge/in_place.h"

namespace {

using tfv::OutSize;
using tfv::Same;

// Channel counts around the vector widths the variants use (4 lanes, 8-channel plane
// groups, 16-lane int8, pairs for SMLAD).
const int32_t kEdgeChannels[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33};
constexpr int32_t kNumEdgeChannels = sizeof(kEdgeChannels) / sizeof(kEdgeChannels[0]);
enum EdgeKind {
  k3x3Same,      // 3x3 stride 1 pad 1 (DS-CNN, vww)
  k3x3Stride2,   // 3x3 stride 2 SAME (asymmetric padding)
  k3x3Valid,     // 3x3 no padding (bias-folded: input_offset 0)
  kTall,         // DS-CNN-like: tall narrow image, 3x3 s1 SAME
  kWide,         // short wide image (lanes along x)
  kStreamedRow,  // out_h == 1 from a cut input (3 rows), horizontal padding
  kOnePixel,     // 1x1 spatial
  kBatches,      // batches 3
  kAllSides,     // window wider than the input, padding on every side
  kMultiplier,   // depth multiplier 2..3
  kDilated,      // dilation 2
  kMixedStride,  // stride 2 along one axis only
  k5x5,          // 5x5 kernel (pass 1: 7x7)
  kStreamedBlock,  // one block of a streamed call (stream_blocks.h) vs __ref's whole output
  kNumKinds
};
constexpr int32_t kEdgeCases = kNumKinds * kNumEdgeChannels * 2;
// Edge kind names, in EdgeKind order (test names: kernel_variants.<symbol>.<kind>).
const char* const kKindNames[kNumKinds] = {
    "3x3_same", "3x3_stride2", "3x3_valid",  "tall",    "wide",         "streamed_row", "one_pixel",
    "batches",  "all_sides",   "multiplier", "dilated", "mixed_stride", "5x5",
    "streamed_block"};
const char* EdgeKindName(int32_t e) { return kKindNames[e % kNumKinds]; }

struct Case {
  s8_dwconv_params p;
  int32_t bias_kind;  // 0 null, 1 small, 2 large, 3 some near +-2^30 (defeat |acc| bounds)
  int32_t mult_kind;  // 0 random per channel, 1 all tiny, 2 all large, 3 typical only
  tfv::BlockCase block;
};

Case RandomCase(tfv::Rng& rng) {
  Case c{};
  s8_dwconv_params& p = c.p;
  for (;;) {
    p = s8_dwconv_params{};
    p.batches = rng.Chance(85) ? 1 : rng.Range(2, 3);
    const int32_t ks[] = {1, 2, 3, 3, 3, 3, 3, 4, 5, 5, 7};
    p.k_h = rng.Pick(ks);
    p.k_w = rng.Chance(80) ? p.k_h : rng.Pick(ks);
    p.stride_h = rng.Chance(55) ? 1 : rng.Range(2, 3);
    p.stride_w = rng.Chance(80) ? p.stride_h : rng.Range(1, 3);
    p.dilation_h = rng.Chance(90) ? 1 : 2;
    p.dilation_w = rng.Chance(90) ? p.dilation_h : rng.Range(1, 2);
    p.depth_multiplier = rng.Chance(85) ? 1 : rng.Range(2, 4);
    p.in_c = rng.Chance(50) ? rng.Range(1, 20) : rng.Range(1, 70);
    p.out_c = p.in_c * p.depth_multiplier;
    p.in_h = rng.Chance(70) ? rng.Range(1, 12) : rng.Range(1, 30);
    p.in_w = rng.Chance(70) ? rng.Range(1, 12) : rng.Range(1, 30);
    const int32_t eff_h = (p.k_h - 1) * p.dilation_h + 1, eff_w = (p.k_w - 1) * p.dilation_w + 1;
    const int32_t pad_kind = rng.Range(0, 2);
    if (pad_kind == 0) {  // VALID
      p.pad_top = p.pad_left = 0;
      p.out_h = OutSize(p.in_h, p.k_h, p.stride_h, p.dilation_h, 0, 0);
      p.out_w = OutSize(p.in_w, p.k_w, p.stride_w, p.dilation_w, 0, 0);
    } else if (pad_kind == 1) {  // SAME
      Same(p.in_h, p.k_h, p.stride_h, p.dilation_h, &p.out_h, &p.pad_top);
      Same(p.in_w, p.k_w, p.stride_w, p.dilation_w, &p.out_w, &p.pad_left);
    } else {  // arbitrary padding on each side
      p.pad_top = rng.Range(0, eff_h - 1);
      p.pad_left = rng.Range(0, eff_w - 1);
      p.out_h =
          OutSize(p.in_h, p.k_h, p.stride_h, p.dilation_h, p.pad_top, rng.Range(0, eff_h - 1));
      p.out_w =
          OutSize(p.in_w, p.k_w, p.stride_w, p.dilation_w, p.pad_left, rng.Range(0, eff_w - 1));
    }
    if (p.out_h <= 0 || p.out_w <= 0) continue;
    if (rng.Chance(10) && p.out_h > 1) p.out_h = 1;  // a streamed row: fewer output rows
    const int32_t macs = p.batches * p.out_h * p.out_w * p.out_c * p.k_h * p.k_w;
    if (macs > 40000) continue;
    if (p.batches * p.in_h * p.in_w * p.in_c > 20000) continue;
    break;
  }
  tfv::RandomQuant(rng, p, rng.Chance(10), 30);
  if (p.pad_top == 0 && p.pad_left == 0 && rng.Chance(50)) p.input_offset = 0;  // folded
  p.rounding = rng.Chance(50) ? TF_ROUNDING_SINGLE : TF_ROUNDING_DOUBLE;
  c.bias_kind = rng.Chance(10) ? 0 : (rng.Chance(85) ? 1 : (rng.Chance(60) ? 2 : 3));
  c.mult_kind = rng.Chance(70) ? 0 : rng.Range(1, 3);
  return c;
}

Case EdgeCase(tfv::Rng& rng, int32_t e) {
  Case c{};
  s8_dwconv_params& p = c.p;
  const int32_t kind = e % kNumKinds;
  const int32_t ci = (e / kNumKinds) % kNumEdgeChannels;
  const int32_t pass = e / (kNumKinds * kNumEdgeChannels);
  p.in_c = kEdgeChannels[ci];
  p.depth_multiplier = 1;
  p.batches = 1;
  p.k_h = p.k_w = 3;
  p.stride_h = p.stride_w = 1;
  p.dilation_h = p.dilation_w = 1;
  p.in_h = rng.Range(3, 6);
  p.in_w = rng.Range(3, 6);
  bool same = true;
  switch (kind) {
    case k3x3Same:
      break;
    case k3x3Stride2:
      p.stride_h = p.stride_w = 2;
      p.in_h = rng.Range(4, 9);
      p.in_w = rng.Range(4, 9);
      break;
    case k3x3Valid:
      same = false;
      p.pad_top = p.pad_left = 0;
      p.out_h = OutSize(p.in_h, 3, 1, 1, 0, 0);
      p.out_w = OutSize(p.in_w, 3, 1, 1, 0, 0);
      break;
    case kTall:
      p.in_h = 25 - pass * 2;
      p.in_w = 5;
      break;
    case kWide:
      p.in_h = 1 + pass;
      p.in_w = rng.Range(8, 13);
      break;
    case kStreamedRow:
      p.in_h = 3;
      p.in_w = rng.Range(3, 9);
      same = false;
      p.pad_top = 0;
      p.pad_left = pass;
      p.out_h = 1;
      p.out_w = OutSize(p.in_w, 3, 1, 1, p.pad_left, pass);
      break;
    case kOnePixel:
      p.in_h = p.in_w = 1;
      p.k_h = p.k_w = (pass == 0) ? 1 : 3;
      break;
    case kBatches:
      p.batches = 3;
      p.stride_h = p.stride_w = 1 + pass;
      p.in_h = p.in_w = 4;
      break;
    case kAllSides:
      p.in_h = p.in_w = 2;
      p.k_h = p.k_w = 3 + 2 * pass;
      same = false;
      p.pad_top = p.pad_left = 1 + pass;
      p.out_h = OutSize(2, p.k_h, 1, 1, p.pad_top, p.k_h - 1);
      p.out_w = OutSize(2, p.k_w, 1, 1, p.pad_left, p.k_w - 1);
      break;
    case kMultiplier:
      p.depth_multiplier = 2 + pass;
      break;
    case kDilated:
      p.dilation_h = p.dilation_w = 2;
      p.in_h = p.in_w = 5;
      break;
    case kMixedStride:
      p.stride_h = 1 + pass;
      p.stride_w = 2 - pass;
      p.in_h = rng.Range(4, 8);
      p.in_w = rng.Range(4, 8);
      break;
    case k5x5:  // and 7x7: two and four tap groups of the M55's plane path
      p.k_h = p.k_w = 5 + 2 * pass;
      p.in_h = p.in_w = 6 + 2 * pass;
      break;
    case kStreamedBlock:  // 3x3 s1 (DS-CNN's 25x5), 3x3 s2, 5x5 s1, dilated
      c.block = tfv::BlockOfEdge(e / kNumKinds);
      p.in_h = ci % 4 == 0 ? 25 : rng.Range(6, 14);
      p.in_w = ci % 4 == 0 ? 5 : rng.Range(3, 9);
      if (ci % 4 == 1) p.stride_h = p.stride_w = 2;
      if (ci % 4 == 2) p.k_h = p.k_w = 5;
      if (ci % 4 == 3) p.dilation_h = p.dilation_w = 2;
      break;
    default:
      break;
  }
  if (same) {
    Same(p.in_h, p.k_h, p.stride_h, p.dilation_h, &p.out_h, &p.pad_top);
    Same(p.in_w, p.k_w, p.stride_w, p.dilation_w, &p.out_w, &p.pad_left);
  }
  p.out_c = p.in_c * p.depth_multiplier;
  tfv::RandomQuant(rng, p, (e & 1) != 0, 30);
  if (kind == k3x3Valid) p.input_offset = 0;
  p.rounding = pass == 0 ? TF_ROUNDING_DOUBLE : TF_ROUNDING_SINGLE;
  c.bias_kind = (e % 7 == 3) ? 0 : ((e % 5 == 2) ? 2 : ((e % 11 == 4) ? 3 : 1));
  c.mult_kind = (e / 3) % 4;
  return c;
}

}  // namespace

TFV_FAMILY_TEST(dwconv, kEdgeCases, EdgeKindName) {
  Case c = ctx.Edge() ? EdgeCase(ctx.rng, ctx.EdgeIndex()) : RandomCase(ctx.rng);
  s8_dwconv_params& p = c.p;
  const int32_t n_in = p.batches * p.in_h * p.in_w * p.in_c;
  const int32_t n_w = p.k_h * p.k_w * p.out_c;
  const int32_t n_out = p.batches * p.out_h * p.out_w * p.out_c;

  int8_t* input = ctx.Alloc<int8_t>(n_in);
  int8_t* weights = ctx.Alloc<int8_t>(n_w);
  int32_t* bias = c.bias_kind == 0 ? nullptr : ctx.Alloc<int32_t>(p.out_c);
  int32_t* mult = ctx.Alloc<int32_t>(p.out_c);
  int32_t* shift = ctx.Alloc<int32_t>(p.out_c);
  int8_t* want = ctx.Output(n_out);
  int8_t* got = ctx.Output(n_out);
  if (input == nullptr || weights == nullptr || mult == nullptr || shift == nullptr ||
      want == nullptr || got == nullptr) {
    return false;
  }
  tfv::FillStress(ctx.rng, input, n_in);
  tfv::FillStress(ctx.rng, weights, n_w);
  if (c.bias_kind == 3) {
    // Typical values mixed with ones around 2^29..2^31 - 2^25 (the reference's bias + dot
    // must not overflow: |dot| < 2^25 here).
    constexpr int32_t kHuge = 2147483647 - (1 << 25);
    const int32_t extremes[] = {1 << 30, -(1 << 30), (1 << 30) - 1, -(1 << 30) + 1,
                                kHuge,   -kHuge,     1 << 29,       -(1 << 29)};
    for (int32_t o = 0; o < p.out_c; ++o) {
      const int32_t kind = ctx.rng.Range(0, 2);
      bias[o] = kind == 0 ? ctx.rng.Range(-(1 << 16), 1 << 16)
                          : (kind == 1 ? ctx.rng.Pick(extremes) : ctx.rng.Range(-kHuge, kHuge));
    }
  } else {
    tfv::FillBias(ctx.rng, bias, p.out_c, c.bias_kind);
  }
  tfv::MultipliersOfKind(ctx.rng, c.mult_kind, mult, shift, p.out_c);
  p.multiplier = mult;
  p.shift = shift;
  ctx.Params(
      "batches %d in %dx%dx%d out %dx%dx%d k %dx%d dm %d stride %d,%d dil %d,%d pad t%d l%d "
      "in_off %d out_off %d act [%d,%d] rounding %d bias %s/%d mult kind %d",
      (int)p.batches, (int)p.in_h, (int)p.in_w, (int)p.in_c, (int)p.out_h, (int)p.out_w,
      (int)p.out_c, (int)p.k_h, (int)p.k_w, (int)p.depth_multiplier, (int)p.stride_h,
      (int)p.stride_w, (int)p.dilation_h, (int)p.dilation_w, (int)p.pad_top, (int)p.pad_left,
      (int)p.input_offset, (int)p.output_offset, (int)p.act_min, (int)p.act_max, (int)p.rounding,
      bias ? "yes" : "null", (int)c.bias_kind, (int)c.mult_kind);

  s8_dwconv__ref(&p, input, weights, bias, want, nullptr);
  if (c.block.rows > 0) {
    const auto call = tfv::MakeBlockCall(p, tinyforge::rt::ConvRows(p), c.block);
    int8_t* unit_out = ctx.Output(call.out_bytes);
    if (unit_out == nullptr) return false;
    ctx.Variant (&s8_dwconv__ref)(&call.unit, input + call.in_offset, weights, bias, unit_out,
                                  ctx.Scratch(&call.unit));
    if (!tfv::Compare(ctx, "block", unit_out, want + call.out_offset, call.out_bytes)) {
      return false;
    }
    // Lean (s8_dwconv_params::lean: chunks of 4 planes), in its own scratch.
    s8_dwconv_params lean = call.unit;
    lean.lean = 1;
    std::memset(unit_out, 0x5A, static_cast<size_t>(call.out_bytes));
    ctx.Variant (&s8_dwconv__ref)(&lean, input + call.in_offset, weights, bias, unit_out,
                                  ctx.Scratch(&lean));
    return tfv::Compare(ctx, "lean block", unit_out, want + call.out_offset, call.out_bytes);
  }
  // Whole, then lean (s8_dwconv_params::lean: chunks of 4 planes) in its own scratch; each
  // exactly in place (output == input) too where the variant may run so
  // (tinyforge/in_place.h; __ref's in-place calls: tests/kernels/kernel_ref_test.cc).
  for (int32_t lean = 0; lean < 2; ++lean) {
    p.lean = lean;
    void* scratch = ctx.Scratch(&p);
    std::memset(got, 0x5A, static_cast<size_t>(n_out));
    ctx.Variant (&s8_dwconv__ref)(&p, input, weights, bias, got, scratch);
    if (!tfv::Compare(ctx, lean ? "lean output" : "output", got, want, n_out)) return false;
    if (tinyforge::rt::DwconvInPlace(tinyforge::rt::KernelId(ctx.symbol()), p)) {
      std::memcpy(got, input, static_cast<size_t>(n_in));
      ctx.Variant (&s8_dwconv__ref)(&p, got, weights, bias, got, scratch);
      if (!tfv::Compare(ctx, lean ? "lean in place" : "in place", got, want, n_out)) return false;
    }
  }
  return true;
}
