// pool family (kernels/pool): every avgpool / maxpool variant vs s8_avgpool__ref /
// s8_maxpool__ref.
#include "tests/kernels/variants/stream_blocks.h"
#include "tests/kernels/variants/variant_harness.h"

namespace {

using tfv::OutSize;
using tfv::Same;

// Channel counts around the vector widths the variants use (4 / 8 / 16 lanes, 32- and
// 64-channel passes, SIMD pairs).
const int32_t kEdgeChannels[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65};
constexpr int32_t kNumEdgeChannels = sizeof(kEdgeChannels) / sizeof(kEdgeChannels[0]);
enum EdgeKind {
  kGlobalKws,    // DS-CNN: 25x5 window over the whole 25x5 input
  kGlobalSmall,  // vww / ResNet: 3x3 and 8x8 global pools
  kGlobalHuge,   // window of more than 256 taps (int32 sums)
  k2x2S2,        // 2x2 stride 2 VALID
  k3x3S2Same,    // 3x3 stride 2 SAME (padding: counts vary per pixel)
  k3x3S1Same,    // 3x3 stride 1 SAME
  kAllSides,     // window wider than the input, padding on every side
  kOnePixel,     // 1x1 input
  kBatches,      // batches 3
  kStreamedBlock,  // one block of a streamed call (stream_blocks.h) vs __ref's whole output
  k1x2S2,        // 1-D pool: 1x2 windows, stride 1x2, over a 1 x W input (Conv1d models)
  kNumKinds
};
constexpr int32_t kEdgeCases = kNumKinds * kNumEdgeChannels * 2;
// Edge kind names, in EdgeKind order (test names: kernel_variants.<symbol>.<kind>).
const char* const kKindNames[kNumKinds] = {"global_kws", "global_small", "global_huge",
                                           "2x2_stride2", "3x3_stride2_same", "3x3_same",
                                           "all_sides",   "one_pixel",        "batches",
                                           "streamed_block", "1d_1x2_stride2"};
const char* EdgeKindName(int32_t e) { return kKindNames[e % kNumKinds]; }

// Valid TFLite pooling: every window overlaps the input (pad < filter).
s8_pool_params RandomParams(tfv::Rng& rng) {
  s8_pool_params p{};
  for (;;) {
    p = s8_pool_params{};
    p.batches = rng.Chance(85) ? 1 : rng.Range(2, 3);
    p.channels = rng.Chance(50) ? rng.Range(1, 20) : rng.Range(1, 80);
    p.in_h = rng.Range(1, 14);
    p.in_w = rng.Range(1, 14);
    if (rng.Chance(20)) {  // global
      p.filter_h = p.in_h;
      p.filter_w = p.in_w;
      p.stride_h = p.stride_w = 1;
      p.out_h = p.out_w = 1;
    } else {
      p.filter_h = rng.Range(1, 5);
      p.filter_w = rng.Chance(70) ? p.filter_h : rng.Range(1, 5);
      p.stride_h = rng.Range(1, 3);
      p.stride_w = rng.Chance(70) ? p.stride_h : rng.Range(1, 3);
      if (rng.Chance(50)) {
        Same(p.in_h, p.filter_h, p.stride_h, 1, &p.out_h, &p.pad_top);
        Same(p.in_w, p.filter_w, p.stride_w, 1, &p.out_w, &p.pad_left);
      } else {
        p.pad_top = rng.Range(0, p.filter_h - 1);
        p.pad_left = rng.Range(0, p.filter_w - 1);
        p.out_h =
            OutSize(p.in_h, p.filter_h, p.stride_h, 1, p.pad_top, rng.Range(0, p.filter_h - 1));
        p.out_w =
            OutSize(p.in_w, p.filter_w, p.stride_w, 1, p.pad_left, rng.Range(0, p.filter_w - 1));
      }
    }
    if (p.out_h <= 0 || p.out_w <= 0) continue;
    // Every window must overlap the input.
    if ((p.out_h - 1) * p.stride_h - p.pad_top >= p.in_h) continue;
    if ((p.out_w - 1) * p.stride_w - p.pad_left >= p.in_w) continue;
    if (p.batches * p.in_h * p.in_w * p.channels > 16000) continue;
    break;
  }
  tfv::RandomClamp(rng, rng.Range(-128, 127), &p.act_min, &p.act_max);
  return p;
}

s8_pool_params EdgeParams(tfv::Rng& rng, int32_t e, tfv::BlockCase* block) {
  s8_pool_params p{};
  const int32_t kind = e % kNumKinds;
  const int32_t ci = (e / kNumKinds) % kNumEdgeChannels;
  const int32_t pass = e / (kNumKinds * kNumEdgeChannels);
  p.batches = 1;
  p.channels = kEdgeChannels[ci];
  p.stride_h = p.stride_w = 1;
  auto global = [&](int32_t h, int32_t w) {
    p.in_h = p.filter_h = h;
    p.in_w = p.filter_w = w;
    p.out_h = p.out_w = 1;
  };
  switch (kind) {
    case kGlobalKws:
      global(25, 5);
      break;
    case kGlobalSmall:
      global(pass == 0 ? 3 : 8, pass == 0 ? 3 : 8);
      break;
    case kGlobalHuge:
      global(pass == 0 ? 17 : 16, pass == 0 ? 16 : 17);  // 272 taps
      if (p.channels > 33) p.channels = 33;
      break;
    case k2x2S2:
      p.in_h = rng.Range(2, 9);
      p.in_w = rng.Range(2, 9);
      p.filter_h = p.filter_w = 2;
      p.stride_h = p.stride_w = 2;
      p.out_h = OutSize(p.in_h, 2, 2, 1, 0, 0);
      p.out_w = OutSize(p.in_w, 2, 2, 1, 0, 0);
      break;
    case k3x3S2Same:
      p.in_h = rng.Range(3, 9);
      p.in_w = rng.Range(3, 9);
      p.filter_h = p.filter_w = 3;
      p.stride_h = p.stride_w = 2;
      Same(p.in_h, 3, 2, 1, &p.out_h, &p.pad_top);
      Same(p.in_w, 3, 2, 1, &p.out_w, &p.pad_left);
      break;
    case k3x3S1Same:
      p.in_h = rng.Range(1, 6);
      p.in_w = rng.Range(1, 6);
      p.filter_h = p.filter_w = 3;
      Same(p.in_h, 3, 1, 1, &p.out_h, &p.pad_top);
      Same(p.in_w, 3, 1, 1, &p.out_w, &p.pad_left);
      break;
    case kAllSides:
      p.in_h = p.in_w = 2;
      p.filter_h = p.filter_w = 3 + pass;
      p.pad_top = p.pad_left = 1 + pass;
      p.out_h = OutSize(2, p.filter_h, 1, 1, p.pad_top, p.filter_h - 1);
      p.out_w = OutSize(2, p.filter_w, 1, 1, p.pad_left, p.filter_w - 1);
      break;
    case kOnePixel:
      p.in_h = p.in_w = 1;
      p.filter_h = p.filter_w = 1 + pass;
      p.out_h = p.out_w = 1;
      break;
    case k1x2S2:
      p.in_h = 1;
      p.in_w = rng.Range(2, 20);
      p.filter_h = 1;
      p.filter_w = 2;
      p.stride_w = 2;
      p.out_h = 1;
      p.out_w = OutSize(p.in_w, 2, 2, 1, 0, 0);
      break;
    case kStreamedBlock:  // 3x3 s2 SAME (vww), 2x2 s2 VALID, 3x3 s1 SAME
      *block = tfv::BlockOfEdge(e / kNumKinds);
      p.in_h = rng.Range(6, 14);
      p.in_w = rng.Range(2, 7);
      p.filter_h = p.filter_w = ci % 3 == 1 ? 2 : 3;
      p.stride_h = p.stride_w = ci % 3 == 2 ? 1 : 2;
      if (ci % 3 == 1) {
        p.out_h = OutSize(p.in_h, 2, 2, 1, 0, 0);
        p.out_w = OutSize(p.in_w, 2, 2, 1, 0, 0);
      } else {
        Same(p.in_h, 3, p.stride_h, 1, &p.out_h, &p.pad_top);
        Same(p.in_w, 3, p.stride_w, 1, &p.out_w, &p.pad_left);
      }
      break;
    case kBatches:
      p.batches = 3;
      p.in_h = p.in_w = 4;
      p.filter_h = p.filter_w = 2;
      p.stride_h = p.stride_w = 2;
      p.out_h = p.out_w = 2;
      break;
    default:
      break;
  }
  if ((e & 1) != 0) {
    p.act_min = -128;
    p.act_max = 127;
  } else {
    tfv::RandomClamp(rng, rng.Range(-128, 127), &p.act_min, &p.act_max);
  }
  return p;
}

void FillInput(tfv::Rng& rng, int8_t* in, int32_t n) {
  switch (rng.Range(0, 9)) {
    case 0:  // extremes: sums at the int16 limits
      for (int32_t i = 0; i < n; ++i) in[i] = rng.Chance(50) ? 127 : -128;
      break;
    case 1:
      for (int32_t i = 0; i < n; ++i) in[i] = -128;
      break;
    case 2:
      for (int32_t i = 0; i < n; ++i) in[i] = 127;
      break;
    case 3:  // small values: many exact ties in the division
      rng.Fill(in, n, -3, 3);
      break;
    default:
      rng.Fill(in, n);
  }
}

template <typename Fn>
bool RunPool(tfv::Context& ctx, Fn* ref) {
  tfv::BlockCase block;
  s8_pool_params p =
      ctx.Edge() ? EdgeParams(ctx.rng, ctx.EdgeIndex(), &block) : RandomParams(ctx.rng);
  const int32_t n_in = p.batches * p.in_h * p.in_w * p.channels;
  const int32_t n_out = p.batches * p.out_h * p.out_w * p.channels;
  int8_t* input = ctx.Alloc<int8_t>(n_in);
  int8_t* want = ctx.Output(n_out);
  int8_t* got = ctx.Output(n_out);
  if (input == nullptr || want == nullptr || got == nullptr) return false;
  FillInput(ctx.rng, input, n_in);
  ctx.Params("batches %d in %dx%dx%d out %dx%d filter %dx%d stride %d,%d pad t%d l%d act [%d,%d]",
             (int)p.batches, (int)p.in_h, (int)p.in_w, (int)p.channels, (int)p.out_h, (int)p.out_w,
             (int)p.filter_h, (int)p.filter_w, (int)p.stride_h, (int)p.stride_w, (int)p.pad_top,
             (int)p.pad_left, (int)p.act_min, (int)p.act_max);
  ref(&p, input, want);
  if (block.rows > 0) {
    const auto call = tfv::MakeBlockCall(p, tinyforge::rt::PoolRows(p), block);
    int8_t* unit_out = ctx.Output(call.out_bytes);
    if (unit_out == nullptr) return false;
    ctx.Variant(ref)(&call.unit, input + call.in_offset, unit_out);
    return tfv::Compare(ctx, "block", unit_out, want + call.out_offset, call.out_bytes);
  }
  ctx.Variant(ref)(&p, input, got);
  return tfv::Compare(ctx, "output", got, want, n_out);
}

}  // namespace

TFV_FAMILY_TEST(avgpool, kEdgeCases, EdgeKindName) { return RunPool(ctx, &s8_avgpool__ref); }

TFV_FAMILY_TEST(maxpool, kEdgeCases, EdgeKindName) { return RunPool(ctx, &s8_maxpool__ref); }
