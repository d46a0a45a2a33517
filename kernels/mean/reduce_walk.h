// The walk every fast mean / reduce_max variant shares: the input as [outer, reduce_size,
// inner], one slice of reduce_size x inner per outer index. A slice with inner == 1 is one
// contiguous run per output (`run(in, reduce_size)` gives that output); otherwise
// `columns(in, out)` reduces the slice's inner columns down its rows. ColumnSum / ColumnMax
// are the one-column scalar step the variants use for the columns their blocks leave.
#ifndef TINYFORGE_KERNELS_MEAN_REDUCE_WALK_H_
#define TINYFORGE_KERNELS_MEAN_REDUCE_WALK_H_

#include <cstdint>

#include "kernels/mean/mean_out.h"

namespace tinyforge::mean {

template <class Params, class Run, class Columns>
inline void ForEachSlice(const Params& p, const int8_t* input, int8_t* output, Run&& run,
                         Columns&& columns) {
  const int32_t R = p.reduce_size, C = p.inner;
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* in = input + o * R * C;
    int8_t* out = output + o * C;
    if (C == 1) {
      out[0] = run(in, R);
    } else {
      columns(in, out);
    }
  }
}

// MEAN from a variant's two steps: `sum_run(q, r)` sums r contiguous inputs (a slice with
// inner == 1), `columns(p, zero_point_sum, in, out)` writes a slice's inner outputs.
template <class SumRun, class Columns>
inline void Mean(const s8_mean_params& p, const int8_t* input, int8_t* output, SumRun&& sum_run,
                 Columns&& columns) {
  const int32_t zps = ZeroPointSum(p);
  ForEachSlice(
      p, input, output, [&](const int8_t* q, int32_t r) { return Out(p, sum_run(q, r), zps); },
      [&](const int8_t* in, int8_t* out) { columns(p, zps, in, out); });
}

// REDUCE_MAX from a variant's two steps: `max_run(q, r)` is the largest of r contiguous
// inputs, `columns(p, in, out)` writes a slice's inner outputs.
template <class MaxRun, class Columns>
inline void ReduceMax(const s8_reduce_max_params& p, const int8_t* input, int8_t* output,
                      MaxRun&& max_run, Columns&& columns) {
  ForEachSlice(p, input, output, max_run,
               [&](const int8_t* in, int8_t* out) { columns(p, in, out); });
}

// Sum / largest value of the R inputs q[0], q[C], q[2C], ...
inline int32_t ColumnSum(const int8_t* q, int32_t R, int32_t C) {
  int32_t a = 0;
  for (int32_t r = R; r > 0; --r, q += C) a += *q;
  return a;
}
inline int8_t ColumnMax(const int8_t* q, int32_t R, int32_t C) {
  int32_t m = -128;
  for (int32_t r = R; r > 0; --r, q += C) m = *q > m ? *q : m;
  return static_cast<int8_t>(m);
}

}  // namespace tinyforge::mean

#endif  // TINYFORGE_KERNELS_MEAN_REDUCE_WALK_H_
