// Strided int8 copies, the loop nest of the fast data-movement variants (transpose, slice;
// not their references): six loops, each with an input and an output stride in elements.
// MakePlan orders a transpose's loops so that the innermost one is the longer of the
// output's last dim (a gather: contiguous writes) and the input's last dim (a scatter:
// contiguous reads); size-1 dims become outer loops of one iteration. Header-only;
// freestanding.
#ifndef TINYFORGE_KERNELS_COMMON_STRIDED_COPY_H_
#define TINYFORGE_KERNELS_COMMON_STRIDED_COPY_H_

#include <cstdint>

#include "kernels/slice/slice.h"
#include "kernels/transpose/transpose.h"

namespace tinyforge::strided {

struct Plan {
  int32_t n[kS8TransposeMaxDims];   // loop counts, outermost first
  int32_t si[kS8TransposeMaxDims];  // input stride per loop
  int32_t so[kS8TransposeMaxDims];  // output stride per loop
};

inline Plan MakePlan(const s8_transpose_params& p) {
  constexpr int kN = kS8TransposeMaxDims;
  int32_t in_stride[kN], od[kN], os[kN], st[kN];
  int32_t s = 1;
  for (int d = kN - 1; d >= 0; --d) {
    in_stride[d] = s;
    s *= p.input_dims[d];
  }
  for (int d = 0; d < kN; ++d) {
    od[d] = p.input_dims[p.perm[d]];
    st[d] = in_stride[p.perm[d]];
  }
  s = 1;
  for (int d = kN - 1; d >= 0; --d) {
    os[d] = s;
    s *= od[d];
  }
  // The innermost candidates: the output's last non-1 dim, the input's last non-1 dim.
  int gather = -1, scatter = -1, in_last = -1;
  for (int d = kN - 1; d >= 0 && gather < 0; --d) {
    if (od[d] > 1) gather = d;
  }
  for (int d = kN - 1; d >= 0 && in_last < 0; --d) {
    if (p.input_dims[d] > 1) in_last = d;
  }
  for (int d = 0; d < kN; ++d) {
    if (p.perm[d] == in_last) scatter = d;
  }
  const int inner = (gather < 0) ? -1
                    : (scatter >= 0 && od[scatter] > od[gather]) ? scatter
                                                                 : gather;
  Plan plan{};
  int k = 0;
  for (int d = 0; d < kN; ++d) {  // size-1 dims first, then the others in output order
    if (od[d] == 1) plan.n[k] = 1, plan.si[k] = 0, plan.so[k] = 0, ++k;
  }
  for (int d = 0; d < kN; ++d) {
    if (od[d] > 1 && d != inner) plan.n[k] = od[d], plan.si[k] = st[d], plan.so[k] = os[d], ++k;
  }
  if (inner >= 0) plan.n[k] = od[inner], plan.si[k] = st[inner], plan.so[k] = os[inner], ++k;
  return plan;
}

// The same copy with size-1 loops dropped and neighbours merged where both strides are
// contiguous (a run of whole rows becomes one long row), right-aligned.
inline Plan Merged(const Plan& t) {
  constexpr int kN = kS8TransposeMaxDims;
  Plan m{};
  int k = 0;
  for (int d = 0; d < kN; ++d) {
    if (t.n[d] == 1) continue;
    if (k > 0 && m.si[k - 1] == t.si[d] * t.n[d] && m.so[k - 1] == t.so[d] * t.n[d]) {
      m.n[k - 1] *= t.n[d];
      m.si[k - 1] = t.si[d];
      m.so[k - 1] = t.so[d];
      continue;
    }
    m.n[k] = t.n[d], m.si[k] = t.si[d], m.so[k] = t.so[d], ++k;
  }
  Plan r{};
  for (int d = 0; d < kN; ++d) r.n[d] = 1;
  for (int d = 0; d < k; ++d) {
    r.n[kN - k + d] = m.n[d], r.si[kN - k + d] = m.si[d], r.so[kN - k + d] = m.so[d];
  }
  return r;
}

// A slice's loops: the output's dims in order, input strides scaled by the slice strides.
inline Plan MakeSlicePlan(const s8_slice_params& p) {
  Plan plan{};
  int32_t si = 1, so = 1;
  for (int d = kS8SliceMaxDims - 1; d >= 0; --d) {
    plan.n[d] = p.output_dims[d];
    plan.si[d] = si * p.stride[d];
    plan.so[d] = so;
    si *= p.input_dims[d];
    so *= p.output_dims[d];
  }
  return plan;
}

// Elements of a slice that is one contiguous run of the input (trailing dims whole, one
// dim cut with stride 1, the dims before it of output extent 1: a GRU gate's third of a
// row, a split along the outermost dim), or 0.
inline int32_t SliceRun(const s8_slice_params& p) {
  int32_t n = 1;
  int d = kS8SliceMaxDims - 1;
  for (; d >= 0 && p.output_dims[d] == p.input_dims[d]; --d) n *= p.output_dims[d];
  if (d >= 0) {
    if (p.stride[d] != 1 && p.output_dims[d] > 1) return 0;
    n *= p.output_dims[d];
    for (--d; d >= 0; --d) {
      if (p.output_dims[d] != 1) return 0;
    }
  }
  return n;
}

// The input offset of a slice's first element.
inline int32_t SliceOffset(const s8_slice_params& p) {
  int32_t offset = 0, s = 1;
  for (int d = kS8SliceMaxDims - 1; d >= 0; --d) {
    offset += p.begin[d] * s;
    s *= p.input_dims[d];
  }
  return offset;
}

// ---- Blocks: short rows ----------------------------------------------------------------
// When the innermost row is short (a channel shuffle's 2 or 8, a slice of a few channels),
// per-row loop control dominates. Then the output is walked in C order in blocks of up to
// kMaxBlock contiguous elements (the trailing output loops merged), each read through one
// table of input offsets computed once: a gather per element and no loop control per row.
constexpr int32_t kMaxBlock = 64;
constexpr int32_t kShortRow = 16;

struct Blocks {
  int32_t n[kS8TransposeMaxDims];   // outer loops (output order), outermost first
  int32_t si[kS8TransposeMaxDims];  // their input strides
  int32_t so[kS8TransposeMaxDims];  // their output strides
  int32_t len;                      // elements per block (the output is contiguous)
  int32_t max_offset;               // largest entry of off
  uint16_t off[kMaxBlock];          // input offset of each block element
  uint8_t off8[kMaxBlock];          // the same when max_offset < 256
};

// Output-order loops (n[d], si[d]; contiguous output) as blocks; false when a block would
// hold fewer than kShortRow elements or an offset does not fit 16 bits (use the rows).
inline bool MakeBlocks(const int32_t* n_in, const int32_t* si_in, Blocks* b) {
  constexpr int kN = kS8TransposeMaxDims;
  int32_t n[kN + 1], si[kN + 1];
  int k = 0;
  for (int d = 0; d < kN; ++d) {  // drop size-1 loops, merge loops contiguous in the input
    if (n_in[d] == 1) continue;
    if (k > 0 && si[k - 1] == si_in[d] * n_in[d]) {
      n[k - 1] *= n_in[d];
      si[k - 1] = si_in[d];
      continue;
    }
    n[k] = n_in[d], si[k] = si_in[d], ++k;
  }
  if (k == 0) return false;
  int first = k;  // the block: trailing loops first..k-1
  int32_t len = 1;
  while (first > 0 && len * n[first - 1] <= kMaxBlock) len *= n[--first];
  if (first > 0 && len < kMaxBlock) {  // split the next loop: (n / f outer) x (f in the block)
    int32_t f = kMaxBlock / len;
    while (f > 1 && n[first - 1] % f != 0) --f;
    if (f > 1) {
      for (int d = k; d >= first; --d) n[d] = n[d - 1], si[d] = si[d - 1];
      n[first] = f;
      n[first - 1] /= f;
      si[first - 1] *= f;
      ++k;
      len *= f;
    }
  }
  if (len < kShortRow) return false;
  int32_t max_offset = 0;
  for (int d = first; d < k; ++d) max_offset += (n[d] - 1) * si[d];
  if (max_offset > 65535) return false;
  // The table in C order: the last loop's offsets, then each earlier loop's copies of it.
  uint16_t* off = b->off;
  int32_t filled = n[k - 1];
  for (int32_t j = 0; j < filled; ++j) off[j] = static_cast<uint16_t>(j * si[k - 1]);
  for (int d = k - 2; d >= first; --d) {
    uint16_t* dst = off + filled;
    for (int32_t m = 1; m < n[d]; ++m) {
      const uint16_t add = static_cast<uint16_t>(m * si[d]);
      for (int32_t j = 0; j < filled; ++j) *dst++ = static_cast<uint16_t>(off[j] + add);
    }
    filled *= n[d];
  }
  if (max_offset < 256) {
    for (int32_t j = 0; j < len; ++j) b->off8[j] = static_cast<uint8_t>(off[j]);
  }
  b->len = len;
  b->max_offset = max_offset;
  int32_t so = len;
  for (int d = kN - 1; d >= 0; --d) b->n[d] = 1, b->si[d] = 0, b->so[d] = 0;
  for (int d = first - 1, o = kN - 1; d >= 0; --d, --o) {
    b->n[o] = n[d], b->si[o] = si[d], b->so[o] = so;
    so *= n[d];
  }
  return true;
}

// Runs `block(in, out, blocks)` for every block (input and output at the block's start).
template <class Block>
inline void ForEachBlock(const Blocks& b, const int8_t* input, int8_t* output, Block&& block) {
  for (int32_t i0 = 0; i0 < b.n[0]; ++i0) {
    for (int32_t i1 = 0; i1 < b.n[1]; ++i1) {
      for (int32_t i2 = 0; i2 < b.n[2]; ++i2) {
        for (int32_t i3 = 0; i3 < b.n[3]; ++i3) {
          for (int32_t i4 = 0; i4 < b.n[4]; ++i4) {
            const int32_t oi = i0 * b.si[0] + i1 * b.si[1] + i2 * b.si[2] + i3 * b.si[3] + i4 * b.si[4];
            const int32_t oo = i0 * b.so[0] + i1 * b.so[1] + i2 * b.so[2] + i3 * b.so[3] + i4 * b.so[4];
            for (int32_t i5 = 0; i5 < b.n[5]; ++i5) {
              block(input + oi + i5 * b.si[5], output + oo + i5 * b.so[5], b);
            }
          }
        }
      }
    }
  }
}

// One block element by element, four per word written. (Not inlined: in its own frame the
// loop keeps every pointer and stride in a register; inlined into the loop nest it spills.)
[[gnu::noinline]] inline void BlockScalar(const int8_t* in, int8_t* out, const Blocks& b) {
  const uint8_t* src = reinterpret_cast<const uint8_t*>(in);
  const uint16_t* off = b.off;
  const int32_t len = b.len;
  const uint16_t* end8 = off + (len & ~7);
  for (; off != end8; off += 8, out += 8) {
    const uint32_t w0 = src[off[0]] | static_cast<uint32_t>(src[off[1]]) << 8 |
                        static_cast<uint32_t>(src[off[2]]) << 16 |
                        static_cast<uint32_t>(src[off[3]]) << 24;
    const uint32_t w1 = src[off[4]] | static_cast<uint32_t>(src[off[5]]) << 8 |
                        static_cast<uint32_t>(src[off[6]]) << 16 |
                        static_cast<uint32_t>(src[off[7]]) << 24;
    __builtin_memcpy(out, &w0, 4);
    __builtin_memcpy(out + 4, &w1, 4);
  }
  for (const uint16_t* end = b.off + len; off != end; ++off) *out++ = static_cast<int8_t>(src[*off]);
}

// The output-order loops of a transpose (for MakeBlocks).
inline void TransposeLoops(const s8_transpose_params& p, int32_t* n, int32_t* si) {
  constexpr int kN = kS8TransposeMaxDims;
  int32_t in_stride[kN];
  int32_t s = 1;
  for (int d = kN - 1; d >= 0; --d) {
    in_stride[d] = s;
    s *= p.input_dims[d];
  }
  for (int d = 0; d < kN; ++d) n[d] = p.input_dims[p.perm[d]], si[d] = in_stride[p.perm[d]];
}

// Runs `row(in, out, n, si, so)` for every innermost row of the plan.
template <class Row>
inline void ForEachRow(const Plan& t, const int8_t* input, int8_t* output, Row&& row) {
  for (int32_t i0 = 0; i0 < t.n[0]; ++i0) {
    const int8_t* in0 = input + i0 * t.si[0];
    int8_t* out0 = output + i0 * t.so[0];
    for (int32_t i1 = 0; i1 < t.n[1]; ++i1) {
      const int8_t* in1 = in0 + i1 * t.si[1];
      int8_t* out1 = out0 + i1 * t.so[1];
      for (int32_t i2 = 0; i2 < t.n[2]; ++i2) {
        const int8_t* in2 = in1 + i2 * t.si[2];
        int8_t* out2 = out1 + i2 * t.so[2];
        for (int32_t i3 = 0; i3 < t.n[3]; ++i3) {
          const int8_t* in3 = in2 + i3 * t.si[3];
          int8_t* out3 = out2 + i3 * t.so[3];
          for (int32_t i4 = 0; i4 < t.n[4]; ++i4) {
            row(in3 + i4 * t.si[4], out3 + i4 * t.so[4], t.n[5], t.si[5], t.so[5]);
          }
        }
      }
    }
  }
}

// One row element by element, four per iteration: contiguous writes packed into words
// (gather), contiguous reads unpacked from words (scatter), or bytes.
[[gnu::noinline]] inline void RowScalar(const int8_t* in, int8_t* out, int32_t n, int32_t si,
                                        int32_t so) {
  int32_t i = 0;
  if (si == 1 && so == 1) {  // a contiguous run: words
    for (; i + 8 <= n; i += 8) {
      uint32_t w0, w1;
      __builtin_memcpy(&w0, in + i, 4);
      __builtin_memcpy(&w1, in + i + 4, 4);
      __builtin_memcpy(out + i, &w0, 4);
      __builtin_memcpy(out + i + 4, &w1, 4);
    }
    for (; i < n; ++i) out[i] = in[i];
    return;
  }
  if (so == 1) {
    const int32_t si2 = 2 * si, si3 = 3 * si, si4 = 4 * si;
    for (; i + 4 <= n; i += 4) {
      const uint32_t w = static_cast<uint32_t>(static_cast<uint8_t>(in[0])) |
                         static_cast<uint32_t>(static_cast<uint8_t>(in[si])) << 8 |
                         static_cast<uint32_t>(static_cast<uint8_t>(in[si2])) << 16 |
                         static_cast<uint32_t>(static_cast<uint8_t>(in[si3])) << 24;
      __builtin_memcpy(out, &w, 4);
      in += si4;
      out += 4;
    }
  } else if (si == 1) {
    const int32_t so2 = 2 * so, so3 = 3 * so, so4 = 4 * so;
    for (; i + 4 <= n; i += 4) {
      uint32_t w;
      __builtin_memcpy(&w, in, 4);
      out[0] = static_cast<int8_t>(w);
      out[so] = static_cast<int8_t>(w >> 8);
      out[so2] = static_cast<int8_t>(w >> 16);
      out[so3] = static_cast<int8_t>(w >> 24);
      in += 4;
      out += so4;
    }
  }
  for (; i < n; ++i) {
    *out = *in;
    in += si;
    out += so;
  }
}

// The whole kernels, given one core's block and row routines (the __scalar and __mve
// variants differ only in those): short rows through an offset table, else row by row.
template <class Block, class Row>
inline void Transpose(const s8_transpose_params& p, const int8_t* input, int8_t* output,
                      Block&& block, Row&& row) {
  const Plan plan = Merged(MakePlan(p));
  if (plan.n[5] < kShortRow) {
    Blocks blocks;
    int32_t n[kS8TransposeMaxDims], si[kS8TransposeMaxDims];
    TransposeLoops(p, n, si);
    if (MakeBlocks(n, si, &blocks)) {
      ForEachBlock(blocks, input, output, block);
      return;
    }
  }
  ForEachRow(plan, input, output, row);
}

template <class Block, class Row>
inline void Slice(const s8_slice_params& p, const int8_t* input, int8_t* output, Block&& block,
                  Row&& row) {
  const int8_t* first = input + SliceOffset(p);
  const int32_t run = SliceRun(p);
  if (run > 0) {  // one contiguous run (a GRU gate's third): no loop nest to plan
    row(first, output, run, 1, 1);
    return;
  }
  const Plan plan = Merged(MakeSlicePlan(p));
  if (plan.n[5] < kShortRow) {
    Blocks blocks;
    if (MakeBlocks(plan.n, plan.si, &blocks)) {
      ForEachBlock(blocks, first, output, block);
      return;
    }
  }
  ForEachRow(plan, first, output, row);
}

}  // namespace tinyforge::strided

#endif  // TINYFORGE_KERNELS_COMMON_STRIDED_COPY_H_
