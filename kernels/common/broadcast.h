// Shape description for elementwise binary kernels (ADD, MUL) with NumPy/TFLite
// broadcasting, and the reference iteration over it. Freestanding C++17.
//
// The output is dense, C order, of extents out_dims[0..5] (outermost first; unused leading
// dimensions are 1). For output index (d0..d5) input k reads element
//   sum_i d_i * ink_strides[i]
// so a broadcast dimension has stride 0. A plain elementwise op of n elements is
// out_dims = {1,1,1,1,1,n}, strides = {0,0,0,0,0,1}. The compiler fills this at compile
// time (compiler/quant MakeBroadcastShape), up to 6 dimensions like TFLite Micro.
#ifndef TINYFORGE_KERNELS_COMMON_BROADCAST_H_
#define TINYFORGE_KERNELS_COMMON_BROADCAST_H_

#include <cstdint>

constexpr int kS8BroadcastMaxDims = 6;

struct s8_broadcast_shape {
  int32_t out_dims[kS8BroadcastMaxDims];     // each >= 1
  int32_t in1_strides[kS8BroadcastMaxDims];  // elements; 0 where input 1 is broadcast
  int32_t in2_strides[kS8BroadcastMaxDims];  // elements; 0 where input 2 is broadcast
};

namespace tinyforge::kernels {

// Calls f(in1_offset, in2_offset, out_offset, n) for every innermost row of n = out_dims[5]
// outputs (input k's row then steps by ink_strides[5]), in output order: the fast kernels'
// walk, which runs their row loops on it.
template <typename F>
inline void ForEachBroadcastRow(const s8_broadcast_shape& s, F&& f) {
  const int32_t n = s.out_dims[5];
  int32_t out = 0;
  for (int32_t d0 = 0; d0 < s.out_dims[0]; ++d0) {
    const int32_t a0 = d0 * s.in1_strides[0], b0 = d0 * s.in2_strides[0];
    for (int32_t d1 = 0; d1 < s.out_dims[1]; ++d1) {
      const int32_t a1 = a0 + d1 * s.in1_strides[1], b1 = b0 + d1 * s.in2_strides[1];
      for (int32_t d2 = 0; d2 < s.out_dims[2]; ++d2) {
        const int32_t a2 = a1 + d2 * s.in1_strides[2], b2 = b1 + d2 * s.in2_strides[2];
        for (int32_t d3 = 0; d3 < s.out_dims[3]; ++d3) {
          const int32_t a3 = a2 + d3 * s.in1_strides[3], b3 = b2 + d3 * s.in2_strides[3];
          for (int32_t d4 = 0; d4 < s.out_dims[4]; ++d4, out += n) {
            f(a3 + d4 * s.in1_strides[4], b3 + d4 * s.in2_strides[4], out, n);
          }
        }
      }
    }
  }
}

// Calls f(in1_index, in2_index, out_index) for every output element, in output order.
template <typename F>
inline void ForEachBroadcast(const s8_broadcast_shape& s, F&& f) {
  const int32_t s1 = s.in1_strides[5], s2 = s.in2_strides[5];
  ForEachBroadcastRow(s, [&](int32_t a, int32_t b, int32_t out, int32_t n) {
    for (int32_t i = 0; i < n; ++i) f(a + i * s1, b + i * s2, out + i);
  });
}

// Whether input 1 is read densely over the whole output and input 2 repeats along the
// innermost dim only (one value per channel of NHWC, or one value): the op is then `rows`
// rows of `inner` elements, input 2's row the same for each (PReLU's slopes).
inline bool RowsOfInner(const s8_broadcast_shape& s, int32_t* rows, int32_t* inner) {
  int32_t total = 1;
  for (int d = 5; d >= 0; --d) {
    if (s.out_dims[d] > 1) {
      if (s.in1_strides[d] != total) return false;
      if (d < 5 && s.in2_strides[d] != 0) return false;
    }
    total *= s.out_dims[d];
  }
  *inner = s.out_dims[5];
  *rows = total / *inner;
  return true;
}

// The output's element count, and whether both inputs are read densely in output order
// (no broadcast: the op is then one row of `elements`, possibly in place).
struct BroadcastExtent {
  int32_t elements;
  bool plain;
};
inline BroadcastExtent Extent(const s8_broadcast_shape& s) {
  bool plain = s.in1_strides[5] == 1 && s.in2_strides[5] == 1;
  int32_t total = s.out_dims[5];
  for (int d = 4; d >= 0; --d) {
    plain = plain &&
            (s.out_dims[d] == 1 || (s.in1_strides[d] == total && s.in2_strides[d] == total));
    total *= s.out_dims[d];
  }
  return {total, plain};
}

// Attention gates over features, x (strides xs) dense in output order (the MUL kernels'
// fast paths):
// - RowScalars: g (strides gs) one value per row of the innermost dimension and dense over
//   the others (a spatial attention map [.., P, 1] over [.., P, C], CBAM's); rows: the
//   output's elements over its innermost extent.
inline bool RowScalars(const s8_broadcast_shape& s, const int32_t* xs, const int32_t* gs,
                       int32_t* rows) {
  if (gs[5] != 0 || xs[5] != 1) return false;
  int32_t total = s.out_dims[5], total_g = 1;
  for (int d = 4; d >= 0; --d) {
    if (s.out_dims[d] > 1 && (xs[d] != total || gs[d] != total_g)) return false;
    total *= s.out_dims[d];
    total_g *= s.out_dims[d];
  }
  *rows = total_g;
  return true;
}

// - VaryingGates: g a vector over the innermost dimension that varies along exactly one
//   other dimension and repeats along exactly one more ([.., H, 1, C] or [.., 1, W, C] over
//   [.., H, W, C], coordinate attention's): for each of `vary` positions (x `vx`, g `vg`
//   elements apart) `rows` rows of x `stride` elements apart.
struct VaryingGates {
  int32_t vary, vx, vg, rows, stride;
};
inline bool FindVaryingGates(const s8_broadcast_shape& s, const int32_t* xs, const int32_t* gs,
                             VaryingGates* v) {
  if (gs[5] != 1 || xs[5] != 1) return false;
  int32_t total = s.out_dims[5], nv = 0, ns = 0;
  for (int d = 4; d >= 0; --d) {
    if (s.out_dims[d] > 1) {
      if (xs[d] != total) return false;
      if (gs[d] == 0) {
        ++ns, v->rows = s.out_dims[d], v->stride = xs[d];
      } else {
        ++nv, v->vary = s.out_dims[d], v->vx = xs[d], v->vg = gs[d];
      }
    }
    total *= s.out_dims[d];
  }
  return nv == 1 && ns == 1;
}

// Which attention gate a MUL's shape is, either input being the gate (g2: input 2): a
// VaryingGates of at most `max_varying` channels, else RowScalars of at least `min_rows`
// channels (the variants' limits). Out of line (one copy per variant's object).
struct GateShape {
  bool varying, g2;
  VaryingGates v;
  int32_t rows;
};
__attribute__((noinline)) inline bool FindGateShape(const s8_broadcast_shape& s,
                                                    int32_t max_varying, int32_t min_rows,
                                                    GateShape* g) {
  const int32_t ch = s.out_dims[5];
  for (int k = 0; k < 2; ++k) {
    g->g2 = k == 0;
    const int32_t* xs = g->g2 ? s.in1_strides : s.in2_strides;
    const int32_t* gs = g->g2 ? s.in2_strides : s.in1_strides;
    g->varying = true;
    if (ch <= max_varying && FindVaryingGates(s, xs, gs, &g->v)) return true;
    g->varying = false;
    if (ch >= min_rows && RowScalars(s, xs, gs, &g->rows)) return true;
  }
  return false;
}

}  // namespace tinyforge::kernels

#endif  // TINYFORGE_KERNELS_COMMON_BROADCAST_H_
