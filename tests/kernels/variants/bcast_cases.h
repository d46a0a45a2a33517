// Broadcast shapes and the run-and-compare body shared by the binary elementwise variant
// tests (add / sub, mul, maximum / minimum): every variant vs its reference on the same
// shapes, edge kinds named per (variant, kind).
#ifndef TINYFORGE_TESTS_KERNELS_VARIANTS_BCAST_CASES_H_
#define TINYFORGE_TESTS_KERNELS_VARIANTS_BCAST_CASES_H_

#include "tests/kernels/variants/variant_harness.h"

namespace tfv::bcast {

enum EdgeKind {
  kResnet16,   // ResNet-8 residual add: 32x32x16, elementwise
  kTail,       // element counts around the vector width: 1..9, 15..17
  kScalarB,    // input 2 a single value broadcast over input 1
  kScalarA,    // input 1 a single value
  kChannelB,   // per-channel [C] broadcast over [H, W, C]
  kRowB,       // [H, 1, C] broadcast over [H, W, C] (innermost contiguous)
  kInnerB,     // [H, W, 1] broadcast over [H, W, C] (innermost broadcast)
  kMixed,      // [1, W, 1] + [H, 1, C]
  kInPlace,    // output aliases input 1
  kBigBcast,   // [16, 16, C] with [C] / a scalar / [16, 16, 1]: long broadcasts (tables)
  kBigBcastA,  // the same with the broadcast operand as input 1 (SE blocks either way)
  kWideChanB,  // per-channel [C] over [H, W, C], C 68..292 (channel chunks; either input)
  kSeGate,     // SE gates [C] over [H, W, C]: C 8..520 (multiples of 8 but 520 > 512), H x W
               // 1 pixel to 42, so repeated gate rows leave some over; either input
  kColB,       // [1, W, C] or [H, 1, C] gates over [H, W, C], H and W 2..6 (coordinate
               // attention); either input
  kNumKinds
};
constexpr int32_t kNumTails = 12;
inline constexpr int32_t kTails[kNumTails] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33};
constexpr int32_t kEdgeCases = kNumKinds * kNumTails * 2;
// Edge kind names, in EdgeKind order (test names: kernel_variants.<symbol>.<kind>).
inline const char* const kKindNames[kNumKinds] = {
    "resnet16", "tail",     "scalar_b", "scalar_a",  "channel_b",  "row_b",
    "inner_b",  "mixed",    "in_place", "big_bcast", "big_bcast_a", "wide_chan_b",
    "se_gate",  "col_b"};
inline const char* EdgeKindName(int32_t e) { return kKindNames[e % kNumKinds]; }

struct Shapes {
  int32_t dims1[kS8BroadcastMaxDims], dims2[kS8BroadcastMaxDims];
  bool in_place;
  int32_t pass;  // edge cases: 0 or 1 (the tests pick the rounding mode by it)
};

inline int32_t Count(const int32_t* dims) {
  int32_t n = 1;
  for (int i = 0; i < kS8BroadcastMaxDims; ++i) n *= dims[i];
  return n;
}

// Strides of each input from its own dims (right-aligned, as compiler/quant does).
inline s8_broadcast_shape Fill(const Shapes& c) {
  s8_broadcast_shape s{};
  int32_t sa = 1, sb = 1;
  for (int i = kS8BroadcastMaxDims - 1; i >= 0; --i) {
    const int32_t a = c.dims1[i], b = c.dims2[i];
    s.out_dims[i] = a > b ? a : b;
    s.in1_strides[i] = a == 1 ? 0 : sa;
    s.in2_strides[i] = b == 1 ? 0 : sb;
    sa *= a;
    sb *= b;
  }
  return s;
}

inline Shapes RandomShapes(Rng& rng) {
  Shapes c{};
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
  return c;
}

inline Shapes EdgeShapes(Rng& rng, int32_t e) {
  Shapes c{};
  const int32_t kind = e % kNumKinds;
  const int32_t n = kTails[(e / kNumKinds) % kNumTails];
  c.pass = e / (kNumKinds * kNumTails);
  for (int i = 0; i < kS8BroadcastMaxDims; ++i) c.dims1[i] = c.dims2[i] = 1;
  int32_t* d1 = c.dims1 + 3;  // [H, W, C]
  int32_t* d2 = c.dims2 + 3;
  const int32_t h = rng.Range(1, 4), w = rng.Range(1, 4);
  switch (kind) {
    case kResnet16:
      d1[0] = d2[0] = 32;
      d1[1] = d2[1] = c.pass == 0 ? 32 : 16;
      d1[2] = d2[2] = 16;
      break;
    case kTail:
      d1[2] = d2[2] = n;
      break;
    case kScalarB:
      d1[0] = h, d1[1] = w, d1[2] = n;
      break;
    case kScalarA:
      d2[0] = h, d2[1] = w, d2[2] = n;
      break;
    case kChannelB:
      d1[0] = h, d1[1] = w, d1[2] = n;
      d2[2] = n;
      break;
    case kRowB:
      d1[0] = h, d1[1] = w, d1[2] = n;
      d2[0] = h, d2[2] = n;
      break;
    case kInnerB:
      d1[0] = h, d1[1] = w, d1[2] = n;
      d2[0] = h, d2[1] = w;
      break;
    case kMixed:
      d1[1] = w;
      d2[0] = h, d2[2] = n;
      break;
    case kBigBcast:
    case kBigBcastA: {
      int32_t* full = kind == kBigBcast ? d1 : d2;
      int32_t* part = kind == kBigBcast ? d2 : d1;
      full[0] = full[1] = 16;
      full[2] = n;
      if (e % 3 == 0) {
        part[2] = n;
      } else if (e % 3 == 2) {
        part[0] = part[1] = 16;
      }
      break;
    }
    case kWideChanB: {
      int32_t* full = n % 2 == 0 ? d1 : d2;
      int32_t* part = n % 2 == 0 ? d2 : d1;
      full[0] = h, full[1] = w, full[2] = 61 + 7 * n;
      part[2] = 61 + 7 * n;
      break;
    }
    case kSeGate: {
      const int32_t i = (e / kNumKinds) % kNumTails;
      const int32_t chans[kNumTails] = {8, 16, 24, 40, 48, 64, 72, 120, 144, 288, 512, 520};
      const int32_t hs[4] = {1, 3, 6, 5}, ws[4] = {1, 3, 6, 7};
      int32_t* full = (i + c.pass) % 2 == 0 ? d1 : d2;
      int32_t* part = (i + c.pass) % 2 == 0 ? d2 : d1;
      full[0] = hs[i % 4], full[1] = ws[(i + c.pass) % 4], full[2] = chans[i];
      part[2] = chans[i];
      break;
    }
    case kColB: {
      int32_t* full = c.pass == 0 ? d1 : d2;
      int32_t* part = c.pass == 0 ? d2 : d1;
      full[0] = rng.Range(2, 6), full[1] = rng.Range(2, 6), full[2] = n;
      part[(e / kNumKinds) % 2 == 0 ? 1 : 0] = full[(e / kNumKinds) % 2 == 0 ? 1 : 0];
      part[2] = n;
      break;
    }
    case kInPlace:
      d1[0] = d2[0] = h;
      d1[1] = d2[1] = w;
      d1[2] = d2[2] = n;
      c.in_place = true;
      break;
    default:
      break;
  }
  return c;
}

inline Shapes AnyShapes(Context& ctx) {
  return ctx.Edge() ? EdgeShapes(ctx.rng, ctx.EdgeIndex()) : RandomShapes(ctx.rng);
}

// The three offsets of a rescaling binary op (add, mul): with `extremes`, each input's
// from `edge` (n values) and the output's -128 or 127; else anywhere in int8 range.
template <class P, size_t n>
void RandomOffsets(Rng& rng, bool extremes, const int32_t (&edge)[n], P& p) {
  if (extremes) {
    p.input1_offset = rng.Pick(edge);
    p.input2_offset = rng.Pick(edge);
    p.output_offset = rng.Chance(50) ? -128 : 127;
  } else {
    p.input1_offset = rng.Range(-127, 128);
    p.input2_offset = rng.Range(-127, 128);
    p.output_offset = rng.Range(-128, 127);
  }
}

inline void ShapeParams(Context& ctx, const s8_broadcast_shape& s, bool in_place,
                        const char* quant) {
  ctx.Params(
      "out [%d,%d,%d,%d,%d,%d] in1 strides [%d,%d,%d,%d,%d,%d] in2 strides [%d,%d,%d,%d,%d,%d] "
      "%s%s",
      (int)s.out_dims[0], (int)s.out_dims[1], (int)s.out_dims[2], (int)s.out_dims[3],
      (int)s.out_dims[4], (int)s.out_dims[5], (int)s.in1_strides[0], (int)s.in1_strides[1],
      (int)s.in1_strides[2], (int)s.in1_strides[3], (int)s.in1_strides[4], (int)s.in1_strides[5],
      (int)s.in2_strides[0], (int)s.in2_strides[1], (int)s.in2_strides[2], (int)s.in2_strides[3],
      (int)s.in2_strides[4], (int)s.in2_strides[5], quant, in_place ? " in-place" : "");
}

// Random inputs (sometimes only the extremes), the reference and the variant under test
// (in place over input 1 when asked), compared byte for byte.
template <class P>
bool RunAndCompare(Context& ctx, const Shapes& c, const P& p,
                   void (*ref)(const P*, const int8_t*, const int8_t*, int8_t*)) {
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
  ref(&p, in1, in2, want);
  if (c.in_place) {
    // out aliases input 1 (same shapes, no broadcast).
    for (int32_t i = 0; i < n_out; ++i) got[i] = in1[i];
    ctx.Variant(ref)(&p, got, in2, got);
  } else {
    ctx.Variant(ref)(&p, in1, in2, got);
  }
  return Compare(ctx, "output", got, want, n_out);
}

}  // namespace tfv::bcast

#endif  // TINYFORGE_TESTS_KERNELS_VARIANTS_BCAST_CASES_H_
