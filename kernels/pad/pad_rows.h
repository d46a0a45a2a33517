// The loop nest of the fast pad variants (not the reference): trailing dims without padding
// are merged into the one before (NHWC spatial padding copies W * C bytes per row), whole
// padded blocks of an outer dim are one fill, and each innermost row is fill, copy, fill.
// `Rows` supplies Fill(dst, n, value) and Copy(dst, src, n) for the core. Header-only;
// freestanding.
#ifndef TINYFORGE_KERNELS_PAD_PAD_ROWS_H_
#define TINYFORGE_KERNELS_PAD_PAD_ROWS_H_

#include <cstdint>

#include "kernels/pad/pad.h"

namespace tinyforge::pad {

struct Dims {
  int32_t n = 0;  // dims in use (>= 1)
  int32_t in[kS8PadMaxDims], before[kS8PadMaxDims], after[kS8PadMaxDims];
  int32_t block[kS8PadMaxDims];  // output elements per index of dim d (product of later dims)
};

inline Dims Merge(const s8_pad_params& p) {
  Dims g;
  for (int d = 0; d < kS8PadMaxDims; ++d) {
    // Leading dims of size 1 without padding carry nothing.
    if (g.n == 0 && p.input_dims[d] == 1 && p.pad_before[d] == 0 && p.pad_after[d] == 0 &&
        d + 1 < kS8PadMaxDims) {
      continue;
    }
    g.in[g.n] = p.input_dims[d], g.before[g.n] = p.pad_before[d], g.after[g.n] = p.pad_after[d];
    ++g.n;
  }
  // An unpadded last dim folds into the one before it.
  while (g.n > 1 && g.before[g.n - 1] == 0 && g.after[g.n - 1] == 0) {
    const int32_t k = g.in[g.n - 1];
    --g.n;
    g.in[g.n - 1] *= k, g.before[g.n - 1] *= k, g.after[g.n - 1] *= k;
  }
  int32_t s = 1;
  for (int d = g.n - 1; d >= 0; --d) {
    g.block[d] = s;
    s *= g.in[d] + g.before[d] + g.after[d];
  }
  return g;
}

template <class Rows>
void Block(const Dims& g, int d, const int8_t*& in, int8_t*& out, int8_t v) {
  const int32_t blk = g.block[d];
  Rows::Fill(out, g.before[d] * blk, v);
  out += g.before[d] * blk;
  if (d == g.n - 1) {
    Rows::Copy(out, in, g.in[d]);
    out += g.in[d], in += g.in[d];
  } else {
    for (int32_t i = 0; i < g.in[d]; ++i) Block<Rows>(g, d + 1, in, out, v);
  }
  Rows::Fill(out, g.after[d] * blk, v);
  out += g.after[d] * blk;
}

template <class Rows>
void Run(const s8_pad_params& p, const int8_t* input, int8_t* output) {
  const Dims g = Merge(p);
  Block<Rows>(g, 0, input, output, static_cast<int8_t>(p.pad_value));
}

}  // namespace tinyforge::pad

#endif  // TINYFORGE_KERNELS_PAD_PAD_ROWS_H_
