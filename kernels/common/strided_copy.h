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

// The input offset of a slice's first element.
inline int32_t SliceOffset(const s8_slice_params& p) {
  int32_t offset = 0, s = 1;
  for (int d = kS8SliceMaxDims - 1; d >= 0; --d) {
    offset += p.begin[d] * s;
    s *= p.input_dims[d];
  }
  return offset;
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
inline void RowScalar(const int8_t* in, int8_t* out, int32_t n, int32_t si, int32_t so) {
  int32_t i = 0;
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

}  // namespace tinyforge::strided

#endif  // TINYFORGE_KERNELS_COMMON_STRIDED_COPY_H_
