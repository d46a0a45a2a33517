// conv family (kernels/conv): every variant vs s8_conv__ref.
#include <algorithm>
#include <cstring>

#include "tests/kernels/variants/stream_blocks.h"
#include "tests/kernels/variants/variant_harness.h"
#include "tinyforge/in_place.h"

namespace {

using tfv::OutSize;
using tfv::Same;

// Channel counts around the vector widths the variants use (4-lane int32, 16-lane int8,
// pairs for SMLAD).
const int32_t kEdgeChannels[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33};
constexpr int32_t kNumEdgeChannels = sizeof(kEdgeChannels) / sizeof(kEdgeChannels[0]);
enum EdgeKind {
  kPointwise,     // 1x1 stride 1, no padding, input_offset 0 (bias folded)
  kPointwiseOff,  // 1x1 stride 1 with an input offset (not folded)
  k3x3Same,       // 3x3 stride 1 pad 1
  k3x3Stride2,    // 3x3 stride 2, SAME (asymmetric) padding
  kKwsFirst,      // 10x4 stride 2 SAME, 1 input channel (DS-CNN's first conv)
  kOnePixel,      // 1x1 spatial in and out
  kStreamedRow,   // out_h == 1 from a cut input
  kBatches,       // batches 3
  kAllSides,      // window wider than the input, padding on every side
  kGrouped,       // groups 2..4
  kDilated,       // dilation 2
  kPointwiseS2,   // 1x1 stride 2 (ResNet shortcut)
  kStreamedBlock,  // one block of a streamed call (stream_blocks.h) vs __ref's whole output
  kNumKinds
};
constexpr int32_t kEdgeCases = kNumKinds * kNumEdgeChannels * 2;
// Edge kind names, in EdgeKind order (test names: kernel_variants.<symbol>.<kind>).
const char* const kKindNames[kNumKinds] = {
    "pointwise", "pointwise_offset", "3x3_same", "3x3_stride2", "kws_first", "one_pixel",
    "streamed_row", "batches", "all_sides", "grouped", "dilated", "pointwise_stride2",
    "streamed_block"};
const char* EdgeKindName(int32_t e) { return kKindNames[e % kNumKinds]; }

struct Case {
  s8_conv_params p;
  int32_t bias_kind;  // 0 null, 1 small, 2 large, 3 some up to +-2^31 (pruned layers)
  int32_t mult_kind;  // 0 random per channel, 1 all tiny, 2 all large, 3 typical only
  bool dead;          // some channels with all-zero weights (pruned layers)
  tfv::BlockCase block;
};

// Bias kind 3: a mix of typical values and huge ones (|b| near 2^30 or 2^31, as pruned
// MobileNet layers carry), which defeat a |acc| < 2^30 bound. Kept within 2^31 - 2^25 so that
// bias + dot (|dot| < 2^25 here) does not overflow in the reference.
void FillHugeBias(tfv::Rng& rng, int32_t* bias, int32_t n) {
  if (bias == nullptr) return;
  constexpr int32_t kHuge = 2147483647 - (1 << 25);
  const int32_t extremes[] = {1 << 30, -(1 << 30), (1 << 30) - 1, -(1 << 30) + 1,
                              kHuge, -kHuge, 1 << 29, -(1 << 29)};
  for (int32_t i = 0; i < n; ++i) {
    switch (rng.Range(0, 2)) {
      case 0:
        bias[i] = rng.Range(-(1 << 16), 1 << 16);
        break;
      case 1:
        bias[i] = rng.Pick(extremes);
        break;
      default:
        bias[i] = rng.Range(-kHuge, kHuge);
    }
  }
}

// Zeroes the weights of a random subset of output channels.
void KillChannels(tfv::Rng& rng, int8_t* weights, int32_t out_c, int32_t k) {
  for (int32_t o = 0; o < out_c; ++o) {
    if (!rng.Chance(50)) continue;
    for (int32_t i = 0; i < k; ++i) weights[o * k + i] = 0;
  }
}

Case RandomCase(tfv::Rng& rng) {
  Case c{};
  s8_conv_params& p = c.p;
  for (;;) {
    p = s8_conv_params{};
    p.batches = rng.Chance(85) ? 1 : rng.Range(2, 3);
    const int32_t ks[] = {1, 1, 1, 2, 3, 3, 3, 4, 5};
    p.k_h = rng.Pick(ks);
    p.k_w = rng.Chance(70) ? p.k_h : rng.Pick(ks);
    p.stride_h = rng.Chance(60) ? 1 : rng.Range(2, 3);
    p.stride_w = rng.Chance(70) ? p.stride_h : rng.Range(1, 3);
    p.dilation_h = rng.Chance(90) ? 1 : 2;
    p.dilation_w = rng.Chance(90) ? p.dilation_h : rng.Range(1, 2);
    const int32_t groups = rng.Chance(88) ? 1 : rng.Range(2, 4);
    const int32_t fic = rng.Chance(50) ? rng.Range(1, 8) : rng.Range(1, 40);
    p.filter_in_c = fic;
    p.in_c = fic * groups;
    p.out_c = groups * (rng.Chance(50) ? rng.Range(1, 8) : rng.Range(1, 24));
    p.in_h = rng.Range(1, 9);
    p.in_w = rng.Range(1, 9);
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
      p.out_h = OutSize(p.in_h, p.k_h, p.stride_h, p.dilation_h, p.pad_top,
                        rng.Range(0, eff_h - 1));
      p.out_w = OutSize(p.in_w, p.k_w, p.stride_w, p.dilation_w, p.pad_left,
                        rng.Range(0, eff_w - 1));
    }
    if (p.out_h <= 0 || p.out_w <= 0) continue;
    if (groups == 1 && p.k_h == 1 && p.k_w == 1 && p.stride_h == 1 && p.stride_w == 1 &&
        pad_kind == 0 && rng.Chance(30)) {
      p.out_c = p.in_c;  // same pixels: in place where a variant may (in_place.h)
    }
    const int32_t macs = p.batches * p.out_h * p.out_w * p.out_c * p.k_h * p.k_w * fic;
    if (macs > 40000) continue;
    break;
  }
  tfv::RandomQuant(rng, p, rng.Chance(10), 40);
  p.rounding = rng.Chance(50) ? TF_ROUNDING_SINGLE : TF_ROUNDING_DOUBLE;
  c.bias_kind = rng.Chance(10) ? 0 : (rng.Chance(85) ? 1 : (rng.Chance(60) ? 2 : 3));
  c.mult_kind = rng.Chance(70) ? 0 : rng.Range(1, 3);
  c.dead = rng.Chance(10);
  return c;
}

Case EdgeCase(tfv::Rng& rng, int32_t e) {
  Case c{};
  s8_conv_params& p = c.p;
  const int32_t kind = e % kNumKinds;
  const int32_t ci = (e / kNumKinds) % kNumEdgeChannels;
  const int32_t pass = e / (kNumKinds * kNumEdgeChannels);
  int32_t in_c = kEdgeChannels[ci];
  int32_t out_c = kEdgeChannels[(ci * 5 + kind + pass * 3) % kNumEdgeChannels];
  p.batches = 1;
  p.k_h = p.k_w = 3;
  p.stride_h = p.stride_w = 1;
  p.dilation_h = p.dilation_w = 1;
  p.in_h = rng.Range(3, 5);
  p.in_w = rng.Range(3, 5);
  int32_t groups = 1;
  bool same = true;
  switch (kind) {
    case kPointwise:
    case kPointwiseOff:
      p.k_h = p.k_w = 1;
      same = false;
      break;
    case kPointwiseS2:
      p.k_h = p.k_w = 1;
      p.stride_h = p.stride_w = 2;
      same = false;
      break;
    case k3x3Same:
      break;
    case k3x3Stride2:
      p.stride_h = p.stride_w = 2;
      p.in_h = rng.Range(4, 7);
      p.in_w = rng.Range(4, 7);
      break;
    case kKwsFirst:
      p.k_h = 10;
      p.k_w = 4;
      p.stride_h = p.stride_w = 2;
      p.in_h = rng.Range(10, 14);
      p.in_w = rng.Range(4, 10);
      in_c = pass == 0 ? 1 : kEdgeChannels[ci % 5];
      out_c = kEdgeChannels[(ci + pass) % kNumEdgeChannels];
      break;
    case kOnePixel:
      p.in_h = p.in_w = 1;
      p.k_h = p.k_w = (pass == 0) ? 1 : 3;
      break;
    case kStreamedRow:
      p.in_h = 3;
      p.in_w = rng.Range(3, 8);
      same = false;
      p.pad_top = 0;
      p.pad_left = pass;  // horizontal padding only, as a streamed row would have
      p.out_h = 1;
      p.out_w = OutSize(p.in_w, 3, 1, 1, p.pad_left, pass);
      break;
    case kBatches:
      p.batches = 3;
      p.k_h = p.k_w = 1 + 2 * pass;
      p.in_h = p.in_w = 3;
      break;
    case kAllSides:
      p.in_h = p.in_w = 2;
      p.k_h = p.k_w = 3 + 2 * pass;
      same = false;
      p.pad_top = p.pad_left = 1 + pass;
      p.out_h = OutSize(2, p.k_h, 1, 1, p.pad_top, p.k_h - 1);
      p.out_w = OutSize(2, p.k_w, 1, 1, p.pad_left, p.k_w - 1);
      break;
    case kGrouped:
      groups = 2 + pass;
      break;
    case kStreamedBlock:  // 3x3 s1 / 3x3 s2 / 1x1 pixels ([H*W, 1]) / DS-CNN's first conv
      c.block = tfv::BlockOfEdge(e / kNumKinds);
      p.in_h = rng.Range(6, 12);
      if (ci % 4 == 1) p.stride_h = p.stride_w = 2;
      if (ci % 4 == 2) {
        p.k_h = p.k_w = 1;
        p.in_h *= rng.Range(2, 4);
        p.in_w = 1;
        same = false;
        p.pad_top = p.pad_left = 0;
        p.out_h = p.in_h;
        p.out_w = 1;
      }
      if (ci % 4 == 3) {
        p.k_h = 10;
        p.k_w = 4;
        p.stride_h = p.stride_w = 2;
        p.in_h = rng.Range(12, 25);
        in_c = 1;
      }
      break;
    case kDilated:
      p.dilation_h = p.dilation_w = 2;
      p.in_h = p.in_w = 5;
      break;
    default:
      break;
  }
  if (kind == kPointwise || kind == kPointwiseOff || kind == kPointwiseS2) {
    p.pad_top = p.pad_left = 0;
    p.out_h = OutSize(p.in_h, 1, p.stride_h, 1, 0, 0);
    p.out_w = OutSize(p.in_w, 1, p.stride_w, 1, 0, 0);
  } else if (same) {
    Same(p.in_h, p.k_h, p.stride_h, p.dilation_h, &p.out_h, &p.pad_top);
    Same(p.in_w, p.k_w, p.stride_w, p.dilation_w, &p.out_w, &p.pad_left);
  }
  p.filter_in_c = in_c;
  p.in_c = in_c * groups;
  p.out_c = out_c * groups;
  tfv::RandomQuant(rng, p, (e & 1) != 0, 40);
  if (kind == kPointwise) p.input_offset = 0;
  if (kind == kPointwiseOff && pass == 1) {  // in place where a variant may (in_place.h)
    if (ci % 3 == 2) p.in_c = p.filter_in_c = p.in_c + 64;  // K > 64: s8_conv__mve's copies
    p.out_c = p.in_c;
  }
  p.rounding = pass == 0 ? TF_ROUNDING_DOUBLE : TF_ROUNDING_SINGLE;
  c.bias_kind = (e % 7 == 3) ? 0 : ((e % 5 == 2) ? 2 : ((e % 11 == 4) ? 3 : 1));
  c.mult_kind = (e / 3) % 4;
  c.dead = (e % 13) == 6;
  return c;
}

// The bias operand of a lean call (s8_conv_params::lean) as the compiler writes it: the
// bias, then s8_conv_mve_lean_words(p) words of s8_conv_mve_lean_word; null where the call
// has no lean form (s8_conv_mve_table_kind 0, or no bias).
const int32_t* LeanBias(tfv::Context& ctx, const s8_conv_params& p, const int8_t* weights,
                        const int32_t* bias) {
  if (bias == nullptr || s8_conv_mve_table_kind(p) == 0) return nullptr;
  const int32_t words = s8_conv_mve_lean_words(p);
  int32_t* out = ctx.Alloc<int32_t>(p.out_c + words);
  if (out == nullptr) return nullptr;
  for (int32_t c = 0; c < p.out_c; ++c) out[c] = bias[c];
  const int kind = s8_conv_mve_table_kind(p);
  int32_t* lean = out + p.out_c;
  for (int32_t i = 0; i < words; ++i) {
    lean[i] = s8_conv_mve_lean_word(p, kind, weights, bias, lean, i);
  }
  return out;
}

}  // namespace

TFV_FAMILY_TEST(conv, kEdgeCases, EdgeKindName) {
  Case c = ctx.Edge() ? EdgeCase(ctx.rng, ctx.EdgeIndex()) : RandomCase(ctx.rng);
  s8_conv_params& p = c.p;
  const int32_t n_in = p.batches * p.in_h * p.in_w * p.in_c;
  const int32_t n_w = p.out_c * p.k_h * p.k_w * p.filter_in_c;
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
  if (c.dead) KillChannels(ctx.rng, weights, p.out_c, n_w / p.out_c);
  if (c.bias_kind == 3) {
    FillHugeBias(ctx.rng, bias, p.out_c);
  } else {
    tfv::FillBias(ctx.rng, bias, p.out_c, c.bias_kind);
  }
  tfv::MultipliersOfKind(ctx.rng, c.mult_kind, mult, shift, p.out_c);
  p.multiplier = mult;
  p.shift = shift;
  ctx.Params(
      "batches %d in %dx%dx%d out %dx%dx%d k %dx%d fic %d stride %d,%d dil %d,%d pad t%d l%d "
      "in_off %d out_off %d act [%d,%d] rounding %d bias %s/%d mult kind %d dead %d",
      (int)p.batches, (int)p.in_h, (int)p.in_w, (int)p.in_c, (int)p.out_h, (int)p.out_w,
      (int)p.out_c, (int)p.k_h, (int)p.k_w, (int)p.filter_in_c, (int)p.stride_h,
      (int)p.stride_w, (int)p.dilation_h, (int)p.dilation_w, (int)p.pad_top, (int)p.pad_left,
      (int)p.input_offset, (int)p.output_offset, (int)p.act_min, (int)p.act_max,
      (int)p.rounding, bias ? "yes" : "null", (int)c.bias_kind, (int)c.mult_kind, (int)c.dead);

  s8_conv__ref(&p, input, weights, bias, want, nullptr);
  if (c.block.rows > 0) {
    const auto call = tfv::MakeBlockCall(p, tinyforge::rt::ConvRows(p), c.block);
    int8_t* unit_out = ctx.Output(call.out_bytes);
    if (unit_out == nullptr) return false;
    s8_conv_params cold = call.unit;  // (StreamUnitParams marks the units after the first warm)
    cold.warm = 0;
    ctx.Variant(&s8_conv__ref)(&cold, input + call.in_offset, weights, bias, unit_out,
                               ctx.Scratch(&cold));
    if (!tfv::Compare(ctx, "block", unit_out, want + call.out_offset, call.out_bytes)) {
      return false;
    }
    // Warm (s8_conv_params::warm): the stream's first unit runs cold, then this one with the
    // scratch it left, as the runtime calls a streamed op's units.
    const auto first = tfv::MakeBlockCall(p, tinyforge::rt::ConvRows(p), {c.block.rows, 0});
    const int32_t n_scratch = std::max(ctx.variant->scratch_bytes(&first.unit),
                                       ctx.variant->scratch_bytes(&call.unit));
    void* scratch = n_scratch > 0 ? ctx.AllocBytes(n_scratch, 0xC3) : nullptr;
    int8_t* first_out = ctx.Output(first.out_bytes);
    int8_t* warm_out = ctx.Output(call.out_bytes);
    if ((n_scratch > 0 && scratch == nullptr) || first_out == nullptr || warm_out == nullptr) {
      return false;
    }
    ctx.Variant(&s8_conv__ref)(&first.unit, input + first.in_offset, weights, bias, first_out,
                               scratch);
    s8_conv_params warm = call.unit;
    warm.warm = 1;  // (also for a whole-tensor block: a repeated call)
    ctx.Variant(&s8_conv__ref)(&warm, input + call.in_offset, weights, bias, warm_out, scratch);
    if (!tfv::Compare(ctx, "warm block", warm_out, want + call.out_offset, call.out_bytes)) {
      return false;
    }
    // Lean (s8_conv_params::lean): the tables in the bias operand, the scratch without them.
    const int32_t* lean_bias = LeanBias(ctx, call.unit, weights, bias);
    if (lean_bias == nullptr) return true;
    s8_conv_params lean = call.unit;
    lean.warm = 0;
    lean.lean = 1;
    std::memset(unit_out, 0x5A, static_cast<size_t>(call.out_bytes));
    ctx.Variant(&s8_conv__ref)(&lean, input + call.in_offset, weights, lean_bias, unit_out,
                               ctx.Scratch(&lean));
    return tfv::Compare(ctx, "lean block", unit_out, want + call.out_offset, call.out_bytes);
  }
  void* scratch = ctx.Scratch(&p);
  ctx.Variant(&s8_conv__ref)(&p, input, weights, bias, got, scratch);
  if (!tfv::Compare(ctx, "output", got, want, n_out)) return false;
  // Again, warm: the scratch as the call above left it.
  std::memset(got, 0x5A, static_cast<size_t>(n_out));
  p.warm = 1;
  ctx.Variant(&s8_conv__ref)(&p, input, weights, bias, got, scratch);
  if (!tfv::Compare(ctx, "warm output", got, want, n_out)) return false;
  // Exactly in place (output == input) where the variant may run so (tinyforge/in_place.h;
  // __ref's in-place calls: tests/kernels/kernel_ref_test.cc).
  const bool in_place = tinyforge::rt::ConvInPlace(tinyforge::rt::KernelId(ctx.symbol()), p);
  if (in_place) {
    p.warm = 0;
    std::memcpy(got, input, static_cast<size_t>(n_in));
    ctx.Variant(&s8_conv__ref)(&p, got, weights, bias, got, scratch);
    if (!tfv::Compare(ctx, "in place", got, want, n_out)) return false;
  }
  // Lean (s8_conv_params::lean): the tables in the bias operand, the scratch without them;
  // in place too where the variant may run so.
  const int32_t* lean_bias = LeanBias(ctx, p, weights, bias);
  if (lean_bias == nullptr) return true;
  p.warm = 0;
  p.lean = 1;
  void* lean_scratch = ctx.Scratch(&p);
  std::memset(got, 0x5A, static_cast<size_t>(n_out));
  ctx.Variant(&s8_conv__ref)(&p, input, weights, lean_bias, got, lean_scratch);
  if (!tfv::Compare(ctx, "lean output", got, want, n_out)) return false;
  if (in_place) {
    std::memcpy(got, input, static_cast<size_t>(n_in));
    ctx.Variant(&s8_conv__ref)(&p, got, weights, lean_bias, got, lean_scratch);
    return tfv::Compare(ctx, "lean in place", got, want, n_out);
  }
  return true;
}
