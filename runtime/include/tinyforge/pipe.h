// Pipes: a chain of row-windowed ops (conv, depthwise conv) run interleaved by blocks of
// rows, so that the tensors between them never exist whole (patch-based execution of the
// first layers, MCUNetV2-style, with full-width patches and no recomputation). Shared by the
// runtime (which executes it) and the memory planner (which sizes the windows and line
// buffer and proves the schedule safe). Freestanding C++17, header-only.
//
// Stage s (0 .. stages-1) is one op with its blocked row geometry g[s] (tinyforge/stream.h:
// unit u = rows u * k .. of its output, one kernel call). Stage s's output (s < stages-1) is
// a window of window_rows[s] rows, read only by stage s+1: it holds rows base .. have - 1 of
// the stage's output, from the window's start. Stage 0 reads the pipe's input tensor whole;
// the last stage computes unit t into slot t % slots of a line buffer, flushed to its place
// in the pipe's output exactly as a streamed op's (RunStream), so the output may overlap the
// input: a unit is flushed once its place holds no input byte stage 0 still reads.
//
// A residual pipe (residual = 1) ends in an elementwise op (ADD) whose other input is the
// pipe's input itself, read row for row: its unit u reads the input rows of its own output
// rows, so those stay unwritten until it has run (a ResNet block: conv, conv, add).
//
// The schedule pulls: the last stage's units in order; a stage whose next unit needs rows
// its producer has not made yet lets the producer compute its next unit first. A stage
// about to write past its window's end first moves the rows its consumer still needs (from
// the first row of the consumer's next unit) to the window's start.
#ifndef TINYFORGE_RUNTIME_PIPE_H_
#define TINYFORGE_RUNTIME_PIPE_H_

#include <cstdint>

#include "tinyforge/stream.h"

namespace tinyforge::rt {

inline constexpr int32_t kMaxPipeStages = 4;

struct Pipe {
  int32_t stages = 0;                            // 2 .. kMaxPipeStages
  StreamGeometry g[kMaxPipeStages] = {};         // per stage, in blocks (StreamBlocks)
  int32_t window_rows[kMaxPipeStages] = {};      // per stage but the last: its window's rows
  int32_t residual = 0;  // 1: the last stage also reads the pipe's input, row for row
};

// Output rows of a blocked geometry, and bytes per output row.
constexpr int64_t PipeRowBytes(const StreamGeometry& g) {
  return g.out_unit_bytes / (g.rows_per_unit < 1 ? 1 : g.rows_per_unit);
}
constexpr int64_t PipeOutRows(const StreamGeometry& g) {
  return StreamOutBytes(g) / PipeRowBytes(g);
}

// The stages chain: each reads, row for row, what the one before writes.
constexpr bool PipeValid(const Pipe& p) {
  if (p.stages < 2 || p.stages > kMaxPipeStages) return false;
  for (int32_t s = 0; s < p.stages; ++s) {
    const StreamGeometry& g = p.g[s];
    if (g.units < 1 || g.in_units < 1 || g.in_unit_bytes < 1 || g.out_unit_bytes < 1 ||
        g.stride < 1 || g.pad < 0 || g.extent < 1 || g.rows_per_unit < 1 ||
        g.out_unit_bytes % g.rows_per_unit != 0 || g.last_unit_bytes < 0 ||
        g.last_unit_bytes % PipeRowBytes(g) != 0) {
      return false;
    }
    if (s > 0 && (g.in_units != PipeOutRows(p.g[s - 1]) ||
                  g.in_unit_bytes != PipeRowBytes(p.g[s - 1]))) {
      return false;
    }
    if (s + 1 < p.stages && p.window_rows[s] < 1) return false;
  }
  if (p.residual != 0) {
    const StreamGeometry& last = p.g[p.stages - 1];
    if (p.residual != 1 || PipeOutRows(last) != p.g[0].in_units ||
        PipeRowBytes(last) != p.g[0].in_unit_bytes) {
      return false;
    }
  }
  return true;
}

// Runs the schedule. Positions are rows or slots; the caller maps them to memory:
//   compute(s, u, in_row, out_row): stage s computes unit u reading its input from row
//     in_row (stage 0: of the pipe's input tensor; others: of the previous stage's window;
//     the unit's first input row, StreamLo) into row out_row of its window, or (the last
//     stage) into line-buffer slot out_row;
//   shift(s, from_row, rows): window s's rows from_row .. from_row + rows - 1 move to its
//     start (a forward copy: from_row > 0);
//   flush(v, slot): as RunStream's (in_base, out_base: byte positions of the pipe's input
//     and output, any origin).
// Returns false, having stopped before writing anything out of bounds, when a window or the
// line buffer is too small.
template <class Compute, class Shift, class Flush>
constexpr bool RunPipe(const Pipe& p, int64_t in_base, int64_t out_base, int32_t slots,
                       Compute&& compute, Shift&& shift, Flush&& flush) {
  if (!PipeValid(p) || slots < 1) return false;
  const int32_t n = p.stages;
  const StreamGeometry& first = p.g[0];
  const StreamGeometry& last = p.g[n - 1];
  const int64_t in_end = in_base + int64_t{first.in_units} * first.in_unit_bytes;
  int32_t next[kMaxPipeStages] = {};  // next unit to compute, per stage
  int32_t have[kMaxPipeStages] = {};  // output rows computed, per stage
  int32_t base[kMaxPipeStages] = {};  // output row at the window's start, per stage
  int32_t head = 0;                   // next unit of the last stage to flush
  for (int32_t t = 0; t < last.units; ++t) {
    if (t - head >= slots) return false;
    int32_t s = n - 1;
    for (;;) {
      const StreamGeometry& g = p.g[s];
      if (s > 0 && have[s - 1] <= StreamHi(g, next[s])) {
        --s;  // the producer first
        continue;
      }
      const int32_t u = next[s];
      const int64_t rows = PipeOutRows(g);
      const int32_t r0 = u * g.rows_per_unit;
      const int32_t r1 = static_cast<int32_t>(r0 + g.rows_per_unit < rows ? r0 + g.rows_per_unit : rows);
      int32_t out_row = t % slots;
      if (s + 1 < n) {
        if (r1 - base[s] > p.window_rows[s]) {
          int32_t keep = static_cast<int32_t>(StreamLo(p.g[s + 1], next[s + 1]));
          if (keep > have[s]) keep = have[s];
          if (keep < base[s] || r1 - keep > p.window_rows[s]) return false;
          if (keep > base[s] && have[s] > keep) shift(s, keep - base[s], have[s] - keep);
          base[s] = keep;
        }
        out_row = r0 - base[s];
      }
      const int32_t lo = static_cast<int32_t>(StreamLo(g, u));
      compute(s, u, s == 0 ? lo : lo - base[s - 1], out_row);
      have[s] = r1;
      ++next[s];
      if (s == n - 1) break;
      ++s;
    }
    // Input bytes at or above needed_lo are still to be read by stage 0 (or, residual, by
    // the last stage's next units).
    int64_t needed_lo =
        next[0] >= first.units ? in_end : in_base + StreamLo(first, next[0]) * first.in_unit_bytes;
    if (p.residual != 0 && t + 1 < last.units) {
      const int64_t lo = in_base + int64_t{t + 1} * last.rows_per_unit * first.in_unit_bytes;
      if (lo < needed_lo) needed_lo = lo;
    }
    while (head <= t) {
      const int64_t dst = out_base + int64_t{head} * last.out_unit_bytes;
      const bool conflict =
          needed_lo < in_end && dst < in_end && dst + StreamUnitBytes(last, head) > needed_lo;
      if (conflict) break;
      flush(head, head % slots);
      ++head;
    }
  }
  return head == last.units;
}

// True if the schedule completes with these windows and `slots` line-buffer slots.
constexpr bool PipeFits(const Pipe& p, int64_t in_base, int64_t out_base, int32_t slots) {
  return RunPipe(
      p, in_base, out_base, slots, [](int32_t, int32_t, int32_t, int32_t) {},
      [](int32_t, int32_t, int32_t) {}, [](int32_t, int32_t) {});
}

// Fewest slots with which the schedule completes, or 0 if none does (windows too small).
constexpr int32_t MinPipeSlots(const Pipe& p, int64_t in_base, int64_t out_base) {
  const int32_t units = p.g[p.stages > 0 ? p.stages - 1 : 0].units;
  if (!PipeFits(p, in_base, out_base, units)) return 0;
  return FewestSlots(units, [&](int32_t slots) { return PipeFits(p, in_base, out_base, slots); });
}

// The fewest rows each window needs (the line buffer aside): window s must hold, when
// stage s computes a unit, the rows from its consumer's next unit's first to the unit's end.
// Writes window_rows[s] for s < stages-1; false if p is not a valid pipe.
constexpr bool MinPipeWindows(Pipe* p) {
  for (int32_t s = 0; s + 1 < p->stages; ++s) {
    p->window_rows[s] = static_cast<int32_t>(PipeOutRows(p->g[s]));  // whole: always enough
  }
  if (!PipeValid(*p)) return false;
  int32_t need[kMaxPipeStages] = {};
  const Pipe whole = *p;
  const int32_t n = whole.stages;
  // The same pulls as RunPipe (windows never full), noting each stage's span.
  int32_t next[kMaxPipeStages] = {};
  int32_t have[kMaxPipeStages] = {};
  for (int32_t t = 0; t < whole.g[n - 1].units; ++t) {
    int32_t s = n - 1;
    for (;;) {
      const StreamGeometry& g = whole.g[s];
      if (s > 0 && have[s - 1] <= StreamHi(g, next[s])) {
        --s;
        continue;
      }
      const int64_t rows = PipeOutRows(g);
      const int32_t r0 = next[s] * g.rows_per_unit;
      const int32_t r1 = static_cast<int32_t>(r0 + g.rows_per_unit < rows ? r0 + g.rows_per_unit : rows);
      if (s + 1 < n) {
        int32_t keep = static_cast<int32_t>(StreamLo(whole.g[s + 1], next[s + 1]));
        if (keep > have[s]) keep = have[s];
        if (r1 - keep > need[s]) need[s] = r1 - keep;
      }
      have[s] = r1;
      ++next[s];
      if (s == n - 1) break;
      ++s;
    }
  }
  for (int32_t s = 0; s + 1 < n; ++s) p->window_rows[s] = need[s];
  return true;
}

}  // namespace tinyforge::rt

#endif  // TINYFORGE_RUNTIME_PIPE_H_
