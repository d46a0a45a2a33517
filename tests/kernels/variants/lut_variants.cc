// lut family (kernels/lut): every variant vs s8_lut__ref.
#include "tests/kernels/variants/variant_harness.h"

namespace {

// Edge cases: every size 1 .. 40 (the unrolled blocks and every tail), out of place and in
// place (output == input), with a random table, the identity table and a constant table.
constexpr int32_t kMaxEdgeSize = 40;
enum EdgeKind { kSizes, kInPlace, kNumEdgeKinds };
constexpr int32_t kEdgeCases = kMaxEdgeSize * kNumEdgeKinds;
const char* const kKindNames[kNumEdgeKinds] = {"sizes", "in_place"};
const char* EdgeKindName(int32_t e) { return kKindNames[e / kMaxEdgeSize]; }

void FillTable(tfv::Rng& rng, int8_t* table) {
  const int32_t kind = rng.Range(0, 9);
  for (int32_t i = 0; i < TF_LUT_ENTRIES; ++i) {
    if (kind == 0) {
      table[i] = static_cast<int8_t>(i);  // identity (as the byte reads)
    } else if (kind == 1) {
      table[i] = -128;
    } else {
      table[i] = static_cast<int8_t>(rng.Range(-128, 127));
    }
  }
}

}  // namespace

TFV_FAMILY_TEST(lut, kEdgeCases, EdgeKindName) {
  s8_lut_params p{};
  bool in_place = false;
  if (ctx.Edge()) {
    p.size = ctx.EdgeIndex() % kMaxEdgeSize + 1;
    in_place = ctx.EdgeIndex() / kMaxEdgeSize == kInPlace;
  } else {
    p.size = ctx.rng.Chance(70) ? ctx.rng.Range(1, 100) : ctx.rng.Range(1, 5000);
    in_place = ctx.rng.Chance(20);
  }
  const int32_t n = p.size;
  int8_t* table = ctx.Alloc<int8_t>(TF_LUT_ENTRIES);
  int8_t* in = ctx.Alloc<int8_t>(n);
  int8_t* want = ctx.Output(n);
  int8_t* got = ctx.Output(n);
  if (table == nullptr || in == nullptr || want == nullptr || got == nullptr) return false;
  FillTable(ctx.rng, table);
  ctx.rng.Fill(in, n);
  ctx.Params("size %d in_place %d", (int)n, (int)in_place);
  s8_lut__ref(&p, in, table, want);
  if (in_place) {
    for (int32_t i = 0; i < n; ++i) got[i] = in[i];
    ctx.Variant (&s8_lut__ref)(&p, got, table, got);
  } else {
    ctx.Variant (&s8_lut__ref)(&p, in, table, got);
  }
  return tfv::Compare(ctx, "output", got, want, n);
}
