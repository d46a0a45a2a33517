// slice family (kernels/slice): every variant vs s8_slice__ref.
#include <initializer_list>

#include "tests/kernels/variants/variant_harness.h"

namespace {

enum EdgeKind {
  kChannels,  // [H*W, C] -> [H*W, c]: a split / chunk of NHWC channels (gather rows)
  kRows,      // [H, W, C] -> rows h0:h1 (contiguous copies)
  kStrided,   // [H, W, C] every 2nd / 3rd pixel and channel
  kSelect,    // one index of a middle dim
  kWide,      // a stride past 16-bit vector offsets (the vector variant's scalar rows)
  kNumKinds
};
constexpr int32_t kNumTails = 8;
const int32_t kTails[kNumTails] = {1, 3, 7, 8, 9, 15, 16, 17};
constexpr int32_t kEdgeCases = kNumKinds * kNumTails;
const char* const kKindNames[kNumKinds] = {"channels", "rows", "strided", "select", "wide"};
const char* EdgeKindName(int32_t e) { return kKindNames[e % kNumKinds]; }

// Output dims from begin/stride and an end per dim (right-aligned to 6 dims).
s8_slice_params Make(std::initializer_list<int32_t> in, std::initializer_list<int32_t> begin,
                     std::initializer_list<int32_t> end, std::initializer_list<int32_t> stride) {
  s8_slice_params p{};
  const int lead = kS8SliceMaxDims - static_cast<int>(in.size());
  for (int i = 0; i < kS8SliceMaxDims; ++i) {
    p.input_dims[i] = p.output_dims[i] = p.stride[i] = 1;
    p.begin[i] = 0;
  }
  const int32_t* b = begin.begin();
  const int32_t* e = end.begin();
  const int32_t* s = stride.begin();
  int i = lead;
  for (int32_t d : in) {
    p.input_dims[i] = d;
    p.begin[i] = *b;
    p.stride[i] = *s;
    p.output_dims[i] = (*e - *b + *s - 1) / *s;
    ++i, ++b, ++e, ++s;
  }
  return p;
}

s8_slice_params RandomCase(tfv::Rng& rng) {
  s8_slice_params p{};
  for (;;) {
    int32_t total = 1;
    for (int i = 0; i < kS8SliceMaxDims; ++i) {
      p.input_dims[i] = rng.Chance(30) ? 1 : rng.Range(1, 10);
      total *= p.input_dims[i];
    }
    if (total <= 6000) break;
  }
  for (int i = 0; i < kS8SliceMaxDims; ++i) {
    const int32_t n = p.input_dims[i];
    p.begin[i] = rng.Range(0, n - 1);
    p.stride[i] = rng.Chance(60) ? 1 : rng.Range(1, 4);
    const int32_t end = rng.Range(p.begin[i] + 1, n);
    p.output_dims[i] = (end - p.begin[i] + p.stride[i] - 1) / p.stride[i];
  }
  return p;
}

s8_slice_params EdgeCase(tfv::Rng& rng, int32_t e) {
  const int32_t n = kTails[(e / kNumKinds) % kNumTails];
  const int32_t hw = rng.Range(1, 30);
  switch (e % kNumKinds) {
    case kChannels:
      return Make({hw, 2 * n + 1}, {0, n}, {hw, 2 * n + 1}, {1, 1});
    case kRows:
      return Make({6, n, 5}, {1, 0, 0}, {5, n, 5}, {1, 1, 1});
    case kStrided:
      return Make({7, 2 * n, 3 * n}, {0, 1, 0}, {7, 2 * n, 3 * n}, {2, 2, 3});
    case kSelect:
      return Make({3, 4, n}, {0, 2, 0}, {3, 3, n}, {1, 1, 1});
    default:
      return Make({n % 4 + 1, 9401 + rng.Range(0, 9)}, {0, 1}, {n % 4 + 1, 9401}, {1, 1});
  }
}

int32_t Count(const int32_t* dims) {
  int32_t n = 1;
  for (int i = 0; i < kS8SliceMaxDims; ++i) n *= dims[i];
  return n;
}

}  // namespace

TFV_FAMILY_TEST(slice, kEdgeCases, EdgeKindName) {
  const s8_slice_params p = ctx.Edge() ? EdgeCase(ctx.rng, ctx.EdgeIndex()) : RandomCase(ctx.rng);
  const int32_t n_in = Count(p.input_dims), n_out = Count(p.output_dims);
  int8_t* in = ctx.Alloc<int8_t>(n_in);
  int8_t* want = ctx.Output(n_out);
  int8_t* got = ctx.Output(n_out);
  if (in == nullptr || want == nullptr || got == nullptr) return false;
  ctx.rng.Fill(in, n_in);
  ctx.Params("in [%d,%d,%d,%d,%d,%d] out [%d,%d,%d,%d,%d,%d] begin [%d,%d,%d,%d,%d,%d] "
             "stride [%d,%d,%d,%d,%d,%d]",
             (int)p.input_dims[0], (int)p.input_dims[1], (int)p.input_dims[2],
             (int)p.input_dims[3], (int)p.input_dims[4], (int)p.input_dims[5],
             (int)p.output_dims[0], (int)p.output_dims[1], (int)p.output_dims[2],
             (int)p.output_dims[3], (int)p.output_dims[4], (int)p.output_dims[5],
             (int)p.begin[0], (int)p.begin[1], (int)p.begin[2], (int)p.begin[3],
             (int)p.begin[4], (int)p.begin[5], (int)p.stride[0], (int)p.stride[1],
             (int)p.stride[2], (int)p.stride[3], (int)p.stride[4], (int)p.stride[5]);
  s8_slice__ref(&p, in, want);
  ctx.Variant (&s8_slice__ref)(&p, in, got);
  return tfv::Compare(ctx, "output", got, want, n_out);
}
