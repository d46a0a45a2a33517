// pad family (kernels/pad): every pad variant vs s8_pad__ref.
#include "tests/kernels/variants/variant_harness.h"

namespace {

enum EdgeKind {
  kSpatialNhwc,  // [1, H, W, C] padded in H and W (conv "same" padding, F.pad of a map)
  kChannels,     // only the last dim padded
  kAllDims,      // every dim padded
  kRow,          // one dim, long rows (vector bodies and tails)
  kNumKinds
};
constexpr int32_t kEdgeCases = kNumKinds * 8;
const char* const kKindNames[kNumKinds] = {"spatial_nhwc", "channels", "all_dims", "row"};
const char* EdgeKindName(int32_t e) { return kKindNames[e % kNumKinds]; }

s8_pad_params Params(tfv::Context& ctx) {
  s8_pad_params p{};
  for (int d = 0; d < kS8PadMaxDims; ++d) p.input_dims[d] = 1;
  tfv::Rng& r = ctx.rng;
  p.pad_value = r.Range(-128, 127);
  const int32_t kind = ctx.Edge() ? ctx.EdgeIndex() % kNumKinds : -1;
  switch (kind) {
    case kSpatialNhwc:
      p.input_dims[1] = r.Range(1, 12), p.input_dims[2] = r.Range(1, 12);
      p.input_dims[3] = r.Range(1, 40);
      p.pad_before[1] = r.Range(0, 2), p.pad_after[1] = r.Range(0, 2);
      p.pad_before[2] = r.Range(0, 2), p.pad_after[2] = r.Range(0, 2);
      break;
    case kChannels:
      p.input_dims[2] = r.Range(1, 6), p.input_dims[3] = r.Range(1, 6);
      p.input_dims[4] = r.Range(1, 33);
      p.pad_before[4] = r.Range(0, 5), p.pad_after[4] = r.Range(0, 18);
      break;
    case kAllDims:
      for (int d = 0; d < kS8PadMaxDims; ++d) {
        p.input_dims[d] = r.Range(1, 4), p.pad_before[d] = r.Range(0, 2);
        p.pad_after[d] = r.Range(0, 2);
      }
      break;
    case kRow:
      p.input_dims[4] = r.Range(1, 100);
      p.pad_before[4] = r.Range(0, 40), p.pad_after[4] = r.Range(0, 40);
      break;
    default:
      for (int d = 0; d < kS8PadMaxDims; ++d) {
        p.input_dims[d] = r.Chance(40) ? 1 : r.Range(1, 5);  // <= 9^5 outputs
        p.pad_before[d] = r.Chance(50) ? 0 : r.Range(0, 2);
        p.pad_after[d] = r.Chance(50) ? 0 : r.Range(0, 2);
      }
      break;
  }
  return p;
}

bool RunPad(tfv::Context& ctx) {
  const s8_pad_params p = Params(ctx);
  int32_t n_in = 1, n_out = 1;
  for (int d = 0; d < kS8PadMaxDims; ++d) {
    n_in *= p.input_dims[d];
    n_out *= p.input_dims[d] + p.pad_before[d] + p.pad_after[d];
  }
  int8_t* input = ctx.Alloc<int8_t>(n_in);
  int8_t* want = ctx.Output(n_out);
  int8_t* got = ctx.Output(n_out);
  if (input == nullptr || want == nullptr || got == nullptr) return false;
  ctx.rng.Fill(input, n_in);
  ctx.Params("in %dx%dx%dx%dx%d before %d,%d,%d,%d,%d after %d,%d,%d,%d,%d value %d",
             (int)p.input_dims[0], (int)p.input_dims[1], (int)p.input_dims[2],
             (int)p.input_dims[3], (int)p.input_dims[4], (int)p.pad_before[0],
             (int)p.pad_before[1], (int)p.pad_before[2], (int)p.pad_before[3],
             (int)p.pad_before[4], (int)p.pad_after[0], (int)p.pad_after[1],
             (int)p.pad_after[2], (int)p.pad_after[3], (int)p.pad_after[4], (int)p.pad_value);
  s8_pad__ref(&p, input, want);
  ctx.Variant(&s8_pad__ref)(&p, input, got);
  return tfv::Compare(ctx, "output", got, want, n_out);
}

}  // namespace

TFV_FAMILY_TEST(pad, kEdgeCases, EdgeKindName) { return RunPad(ctx); }
