// In-place execution by output rows ("streaming"), shared by the runtime (which executes it)
// and the memory planner (which decides where the output may overlap the input and how
// large a line buffer that needs). Freestanding C++17, header-only.
//
// An op streams when output unit u (k output rows, computed by one kernel call; k pixels
// for a 1x1 convolution compiled as an [H*W, 1] image) reads only input units lo(u)..hi(u),
// with lo non-decreasing:
// convolutions, depthwise convolutions and pools with batch 1. The runtime computes unit t
// into slot t % slots of a line buffer, then copies finished units to their place in the
// output, in order, as soon as that place holds no input byte a later unit still reads
// (input units >= lo(t + 1)). So the output may overlap its input; how much line buffer
// that takes depends only on where the output starts relative to the input
// (docs/memory-planning.md works the cases through).
#ifndef TINYFORGE_RUNTIME_STREAM_H_
#define TINYFORGE_RUNTIME_STREAM_H_

#include <cstdint>

namespace tinyforge::rt {

struct StreamGeometry {
  int32_t units;           // output units (rows), >= 1
  int32_t in_units;        // input units, >= 1
  int32_t in_unit_bytes;   // >= 1
  int32_t out_unit_bytes;  // >= 1
  int32_t stride;          // >= 1
  int32_t pad;             // >= 0, input units before the first (top padding)
  int32_t extent;          // >= 1, input units one output unit spans: (k - 1) * dilation + 1
  // Output rows per unit (the kernel call's out_h; docs/decisions.md 54): 1 for a geometry
  // by rows; StreamBlocks(g, k) makes units of k rows. The last unit may hold fewer rows:
  // last_unit_bytes (0: out_unit_bytes, a whole unit).
  int32_t rows_per_unit = 1;
  int32_t last_unit_bytes = 0;
};

// Bytes of output unit v (the last one may be a partial block).
constexpr int64_t StreamUnitBytes(const StreamGeometry& g, int64_t v) {
  return v + 1 == g.units && g.last_unit_bytes > 0 ? g.last_unit_bytes : g.out_unit_bytes;
}
// Bytes of the whole output.
constexpr int64_t StreamOutBytes(const StreamGeometry& g) {
  return int64_t{g.units - 1} * g.out_unit_bytes + StreamUnitBytes(g, g.units - 1);
}

// The geometry of `g` (units of one row each) computed k rows per unit: unit u covers rows
// u * k .. min(u * k + k, g.units) - 1, reads from row u * k * stride - pad, spans
// (k - 1) * stride + extent input units; the last unit holds the remaining rows. k >= 1;
// k >= g.units is one unit (the whole tensor in one call).
constexpr StreamGeometry StreamBlocks(const StreamGeometry& g, int32_t k) {
  if (k > g.units) k = g.units;
  if (k <= 1) return g;
  const int32_t units = (g.units + k - 1) / k;
  const int32_t last_rows = g.units - (units - 1) * k;
  StreamGeometry b = g;
  b.units = units;
  b.out_unit_bytes = g.out_unit_bytes * k;
  b.stride = g.stride * k;
  b.extent = (k - 1) * g.stride + g.extent;
  b.rows_per_unit = k;
  b.last_unit_bytes = last_rows == k ? 0 : g.out_unit_bytes * last_rows;
  return b;
}

// The row geometry of a windowed op over an NHWC image (batch 1): output rows of
// out_w * out_c bytes, each reading the input rows (in_w * in_c bytes) its k-row window,
// dilated, covers. The compiler (which plans the streaming, compiler/emit/encode_ops.cc) and
// the runtime (which runs it, runtime/ops/) both take it from here.
constexpr StreamGeometry WindowRows(int32_t in_h, int32_t in_row_bytes, int32_t out_h,
                                    int32_t out_row_bytes, int32_t stride, int32_t pad, int32_t k,
                                    int32_t dilation) {
  return {out_h, in_h, in_row_bytes, out_row_bytes, stride, pad, (k - 1) * dilation + 1};
}
// s8_conv_params, s8_dwconv_params (kernels/conv/conv.h, kernels/dwconv/dwconv.h).
// An elementwise op by rows (a residual ADD ending a pipe, tinyforge/pipe.h): output row r
// reads input row r.
constexpr StreamGeometry ElementwiseRows(int32_t rows, int32_t row_bytes) {
  return WindowRows(rows, row_bytes, rows, row_bytes, 1, 0, 1, 1);
}
template <class P>
constexpr StreamGeometry ConvRows(const P& p) {
  return WindowRows(p.in_h, p.in_w * p.in_c, p.out_h, p.out_w * p.out_c, p.stride_h, p.pad_top,
                    p.k_h, p.dilation_h);
}
// s8_pool_params (kernels/pool/pool.h).
template <class P>
constexpr StreamGeometry PoolRows(const P& p) {
  return WindowRows(p.in_h, p.in_w * p.channels, p.out_h, p.out_w * p.channels, p.stride_h,
                    p.pad_top, p.filter_h, 1);
}

// First input unit output unit u reads (clamped to [0, in_units]).
constexpr int64_t StreamLo(const StreamGeometry& g, int64_t u) {
  const int64_t y = u * g.stride - g.pad;
  return y < 0 ? 0 : (y > g.in_units ? g.in_units : y);
}
// Last input unit output unit u reads, or lo(u) - 1 when it reads none.
constexpr int64_t StreamHi(const StreamGeometry& g, int64_t u) {
  const int64_t y = u * g.stride - g.pad + g.extent - 1;
  const int64_t hi = y >= g.in_units ? g.in_units - 1 : y;
  const int64_t lo = StreamLo(g, u);
  return hi < lo ? lo - 1 : hi;
}

// The parameters of the kernel call computing unit u of `g` (StreamBlocks of the op's
// ConvRows / PoolRows; P has in_h, out_h, stride_h, pad_top): p with out_h the unit's rows
// and the input cut to start at its first row (StreamLo), the top padding what remains of
// the window above it. The kernels' contract (output row oy reads input rows from
// oy * stride_h - pad_top, bottom padding implied by out_h) makes this call compute exactly
// rows u * k .. of the whole-tensor call; in_h ends at the unit's last input row (the rows
// below it would be read by no output of the unit). The runtime calls the kernel with it; the compiler
// sizes scratch and links paths for it.
namespace stream_detail {
// Units after the first run warm where the params have the field (s8_conv_params::warm: the
// executors run a streamed op's units in order, with the op's own scratch).
template <class P>
constexpr auto SetWarm(P& p, int32_t u, int) -> decltype(p.warm = 0, void()) {
  p.warm = u > 0 ? 1 : 0;
}
template <class P>
constexpr void SetWarm(P&, int32_t, long) {}
}  // namespace stream_detail

template <class P>
constexpr P StreamUnitParams(const P& p, const StreamGeometry& g, int32_t u) {
  P row = p;
  stream_detail::SetWarm(row, u, 0);
  const int32_t r0 = u * g.rows_per_unit;
  const int32_t y0 = r0 * p.stride_h - p.pad_top;
  const int32_t first = static_cast<int32_t>(StreamLo(g, u));
  row.in_h = p.in_h - first;
  row.pad_top = first - y0;
  row.out_h = p.out_h - r0 < g.rows_per_unit ? p.out_h - r0 : g.rows_per_unit;
  // Only the rows the unit reads: a pipe's window ends there (tinyforge/pipe.h).
  const int32_t reads = static_cast<int32_t>(StreamHi(g, u)) - first + 1;
  if (reads >= 1 && reads < row.in_h) row.in_h = reads;
  return row;
}

// The schedule. Addresses are byte positions (any origin, only differences matter):
// the input occupies [in_base, in_base + in_units * in_unit_bytes), output unit v goes to
// out_base + v * out_unit_bytes (StreamUnitBytes(g, v) bytes). compute(t, slot) must
// produce unit t into line-buffer slot `slot`; flush(v, slot) copies unit v from its slot to its place. Returns false,
// having stopped, when unit t's slot still holds an unflushed unit (too few slots).
template <class Compute, class Flush>
constexpr bool RunStream(const StreamGeometry& g, int64_t in_base, int64_t out_base, int32_t slots,
                         Compute&& compute, Flush&& flush) {
  if (slots < 1) return false;
  const int64_t in_end = in_base + int64_t{g.in_units} * g.in_unit_bytes;
  int32_t head = 0;  // next unit to flush
  for (int32_t t = 0; t < g.units; ++t) {
    if (t - head >= slots) return false;
    compute(t, t % slots);
    const bool last = t + 1 == g.units;
    // Input bytes at or above needed_lo are still to be read by units > t.
    const int64_t needed_lo = last ? in_end : in_base + StreamLo(g, t + 1) * g.in_unit_bytes;
    while (head <= t) {
      const int64_t dst = out_base + int64_t{head} * g.out_unit_bytes;
      const bool conflict =
          needed_lo < in_end && dst < in_end && dst + StreamUnitBytes(g, head) > needed_lo;
      if (conflict) break;
      flush(head, head % slots);
      ++head;
    }
  }
  return true;
}

// True if the schedule completes with `slots` line-buffer slots.
constexpr bool StreamFits(const StreamGeometry& g, int64_t in_base, int64_t out_base,
                          int32_t slots) {
  return RunStream(
      g, in_base, out_base, slots, [](int32_t, int32_t) {}, [](int32_t, int32_t) {});
}

// The fewest slots in 1 .. hi for which fits(slots) holds, given that it holds for hi and is
// monotone in slots (a binary search; shared with tinyforge/pipe.h).
template <class Fits>
constexpr int32_t FewestSlots(int32_t hi, Fits&& fits) {
  int32_t lo = 1;
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (fits(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// Fewest slots with which the schedule completes (at most g.units, which always works:
// every unit is flushed after the last one is computed).
constexpr int32_t MinStreamSlots(const StreamGeometry& g, int64_t in_base, int64_t out_base) {
  return FewestSlots(g.units,
                     [&](int32_t slots) { return StreamFits(g, in_base, out_base, slots); });
}

}  // namespace tinyforge::rt

#endif  // TINYFORGE_RUNTIME_STREAM_H_
