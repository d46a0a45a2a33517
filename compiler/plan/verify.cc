// The plan verifier. Deliberately shares no code with place.cc: it re-derives every fact it
// relies on from the problem and the offsets. For streamed overlaps it takes the runtime's
// flush order from rt::RunStream (that *is* what will execute) and checks it against the
// input rows each output row reads, computed here from the geometry.
#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "plan/problem.h"

namespace tinyforge::plan {
namespace {

std::string Name(const Problem& p, int b) {
  return "'" + p.buffers[static_cast<size_t>(b)].name + "'";
}

// Checks that streaming `o` with the input at in_off, the output at out_off and `slots`
// line-buffer slots never writes an input byte that a later output unit still reads.
// A pipe (tinyforge/pipe.h): the same check, with the input rows each output unit's
// computation reads taken from the pipe's schedule (stage 0's units, run for last-stage unit
// t, read rows lo..hi of the input; a residual pipe's last stage reads its own rows too).
Status CheckPipe(const Problem& p, const Overlap& o, int64_t in_off, int64_t out_off,
                 int64_t line_size) {
  const rt::Pipe& pipe = o.pipe;
  const Buffer& in = p.buffers[static_cast<size_t>(o.in)];
  const Buffer& out = p.buffers[static_cast<size_t>(o.out)];
  if (!rt::PipeValid(pipe)) return Error::Internal("verify: pipe of " + Name(p, o.out) + " is invalid");
  const rt::StreamGeometry& first = pipe.g[0];
  const rt::StreamGeometry& last = pipe.g[pipe.stages - 1];
  if (int64_t{first.in_units} * first.in_unit_bytes != in.size ||
      rt::StreamOutBytes(last) != out.size) {
    return Error::Internal("verify: pipe " + Name(p, o.in) + " -> " + Name(p, o.out) +
                           " does not match the buffer sizes");
  }
  const int64_t slots = line_size / last.out_unit_bytes;
  if (slots < 1 || slots > 0x7fffffff) {
    return Error::Internal("verify: line buffer of " + Name(p, o.out) + " holds no output row");
  }
  // last_read[r]: the last last-stage unit during whose computation input row r is read.
  std::vector<int64_t> last_read(static_cast<size_t>(first.in_units), -1);
  int64_t now = 0;  // last-stage units computed so far: stage 0 works for unit `now`
  const bool ran = rt::RunPipe(
      pipe, in_off, out_off, static_cast<int32_t>(slots),
      [&](int32_t s, int32_t u, int32_t, int32_t) {
        if (s == pipe.stages - 1) {
          ++now;
          // A residual pipe's last stage reads the input rows of its own output rows.
          const int64_t r0 = int64_t{u} * last.rows_per_unit;
          const int64_t r1 = std::min<int64_t>(r0 + last.rows_per_unit, first.in_units);
          for (int64_t r = r0; pipe.residual != 0 && r < r1; ++r) {
            int64_t& at = last_read[static_cast<size_t>(r)];
            at = std::max<int64_t>(at, u);
          }
        }
        if (s != 0) return;
        const int64_t top = int64_t{u} * first.stride - first.pad;
        for (int64_t r = top; r < top + first.extent; ++r) {
          if (r >= 0 && r < first.in_units) last_read[static_cast<size_t>(r)] = now;
        }
      },
      [](int32_t, int32_t, int32_t) {}, [](int32_t, int32_t) {});
  if (!ran) {
    return Error::Internal("verify: pipe of " + Name(p, o.out) + ": windows or line buffer (" +
                           std::to_string(slots) + " rows) too small");
  }
  std::string violation;
  int64_t t = -1;
  rt::RunPipe(
      pipe, in_off, out_off, static_cast<int32_t>(slots),
      [&](int32_t s, int32_t u, int32_t, int32_t) {
        if (s == pipe.stages - 1) t = u;
      },
      [](int32_t, int32_t, int32_t) {},
      [&](int32_t v, int32_t) {
        const int64_t lo = out_off + int64_t{v} * last.out_unit_bytes;
        const int64_t hi = lo + rt::StreamUnitBytes(last, v);
        for (int64_t r = 0; r < first.in_units && violation.empty(); ++r) {
          const int64_t rlo = in_off + r * first.in_unit_bytes, rhi = rlo + first.in_unit_bytes;
          if (lo < rhi && rlo < hi && last_read[static_cast<size_t>(r)] > t) {
            violation = "output unit " + std::to_string(v) + " overwrites input row " +
                        std::to_string(r) + " after unit " + std::to_string(t) + " but unit " +
                        std::to_string(last_read[static_cast<size_t>(r)]) + " still reads it";
          }
        }
      });
  if (!violation.empty()) {
    return Error::Internal("verify: pipe " + Name(p, o.in) + " -> " + Name(p, o.out) + ": " + violation);
  }
  return OkStatus();
}

Status CheckStream(const Problem& p, const Overlap& o, int64_t in_off, int64_t out_off,
                   int64_t line_size) {
  if (o.pipe.stages > 0) return CheckPipe(p, o, in_off, out_off, line_size);
  const rt::StreamGeometry& g = o.geometry;
  const Buffer& in = p.buffers[static_cast<size_t>(o.in)];
  const Buffer& out = p.buffers[static_cast<size_t>(o.out)];
  if (g.units < 1 || g.in_units < 1 || g.in_unit_bytes < 1 || g.out_unit_bytes < 1 ||
      g.stride < 1 || g.pad < 0 || g.extent < 1 || g.rows_per_unit < 1 ||
      g.last_unit_bytes < 0 || g.last_unit_bytes >= g.out_unit_bytes ||
      int64_t{g.in_units} * g.in_unit_bytes != in.size || rt::StreamOutBytes(g) != out.size) {
    return Error::Internal("verify: stream geometry of " + Name(p, o.in) + " -> " + Name(p, o.out) +
                 " does not match the buffer sizes");
  }
  const int64_t slots = line_size / g.out_unit_bytes;
  if (slots < 1 || slots > 0x7fffffff) {
    return Error::Internal("verify: line buffer of " + Name(p, o.out) + " holds no output row");
  }
  // last_read[r]: the last output unit whose window covers input unit r (-1: none).
  std::vector<int64_t> last_read(static_cast<size_t>(g.in_units), -1);
  for (int64_t u = 0; u < g.units; ++u) {
    const int64_t top = u * g.stride - g.pad;
    for (int64_t r = top; r < top + g.extent; ++r) {
      if (r >= 0 && r < g.in_units) last_read[static_cast<size_t>(r)] = u;
    }
  }
  int64_t now = -1;
  std::string violation;
  const bool completed = rt::RunStream(
      g, in_off, out_off, static_cast<int32_t>(slots), [&](int32_t t, int32_t) { now = t; },
      [&](int32_t v, int32_t) {
        const int64_t lo = out_off + int64_t{v} * g.out_unit_bytes;
        const int64_t hi = lo + rt::StreamUnitBytes(g, v);
        // Input units whose bytes intersect [lo, hi).
        const int64_t r0 = std::max<int64_t>(0, (lo - in_off) / g.in_unit_bytes - 1);
        const int64_t r1 = std::min<int64_t>(g.in_units, (hi - in_off) / g.in_unit_bytes + 1);
        for (int64_t r = r0; r < r1 && violation.empty(); ++r) {
          const int64_t rlo = in_off + r * g.in_unit_bytes, rhi = rlo + g.in_unit_bytes;
          if (lo < rhi && rlo < hi && last_read[static_cast<size_t>(r)] > now) {
            violation = "output unit " + std::to_string(v) + " overwrites input unit " +
                        std::to_string(r) + " after unit " + std::to_string(now) + " but unit " +
                        std::to_string(last_read[static_cast<size_t>(r)]) + " still reads it";
          }
        }
      });
  if (!completed) {
    return Error::Internal("verify: line buffer of " + Name(p, o.out) + " (" + std::to_string(slots) +
                 " rows) too small for its offset");
  }
  if (!violation.empty()) {
    return Error::Internal("verify: streaming " + Name(p, o.in) + " -> " + Name(p, o.out) + ": " + violation);
  }
  return OkStatus();
}

// `first` is the first permission between buffers a and b (in either direction), or null.
Status CheckOverlap(const Problem& p, const Plan& plan, int a, int b, const Overlap* first) {
  if (first) {
    const Overlap& o = *first;
    const Buffer& in = p.buffers[static_cast<size_t>(o.in)];
    const Buffer& out = p.buffers[static_cast<size_t>(o.out)];
    if (in.last != o.step || out.first != o.step) {
      return Error::Internal("verify: overlap of " + Name(p, o.in) + " and " + Name(p, o.out) +
                   " is not at the step where one dies and the other is born");
    }
    const int64_t in_off = plan.placements[static_cast<size_t>(o.in)].offset;
    const int64_t out_off = plan.placements[static_cast<size_t>(o.out)].offset;
    if (o.kind == OverlapKind::kAlias) {
      if (in_off != out_off || in.size != out.size) {
        return Error::Internal("verify: " + Name(p, o.out) + " may only alias " + Name(p, o.in) +
                     " exactly, but is at offset " + std::to_string(out_off) + " vs " +
                     std::to_string(in_off));
      }
      return OkStatus();
    }
    if (o.line_buffer < 0 || static_cast<size_t>(o.line_buffer) >= p.buffers.size()) {
      return Error::Internal("verify: streamed " + Name(p, o.out) + " has no line buffer");
    }
    const Buffer& line = p.buffers[static_cast<size_t>(o.line_buffer)];
    if (line.first > o.step || line.last < o.step) {
      return Error::Internal("verify: line buffer " + line.name + " is not live at its op");
    }
    return CheckStream(p, o, in_off, out_off, line.size);
  }
  return Error::Internal("verify: " + Name(p, a) + " and " + Name(p, b) +
               " share bytes while both are live, without a permission");
}

}  // namespace

Status Verify(const Problem& p, const Plan& plan) {
  if (plan.placements.size() != p.buffers.size()) {
    return Error::Internal("verify: " + std::to_string(plan.placements.size()) + " placements for " +
                 std::to_string(p.buffers.size()) + " buffers");
  }
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const Buffer& buf = p.buffers[b];
    const Placement& pl = plan.placements[b];
    if (pl.region < 0 || static_cast<size_t>(pl.region) >= p.regions.size()) {
      return Error::Internal("verify: " + Name(p, static_cast<int>(b)) + " is in no region");
    }
    const Region& r = p.regions[static_cast<size_t>(pl.region)];
    if (!buf.pin.empty() && buf.pin != r.name) {
      return Error::Internal("verify: " + Name(p, static_cast<int>(b)) + " is pinned to '" + buf.pin +
                   "' but placed in '" + r.name + "'");
    }
    if (pl.offset < 0 || pl.offset % buf.align != 0 || pl.offset + buf.size > r.capacity) {
      return Error::Internal("verify: " + Name(p, static_cast<int>(b)) + " at offset " +
                   std::to_string(pl.offset) + " is misaligned or outside region '" + r.name +
                   "' (" + std::to_string(r.capacity) + " bytes)");
    }
  }
  // Every pair live at the same time (found by a sweep over the steps: O(sum of
  // lifetimes), not O(buffers^2)) that shares bytes needs a permission; the first failing
  // pair (a < b, lexicographically) is reported.
  std::map<std::pair<int, int>, const Overlap*> permission;
  for (const Overlap& o : p.overlaps) {
    // emplace keeps the first permission of a pair, as the scan in order found it.
    permission.emplace(std::pair<int, int>(std::minmax(o.in, o.out)), &o);
  }
  std::vector<size_t> by_first(p.buffers.size());
  for (size_t b = 0; b < by_first.size(); ++b) by_first[b] = b;
  std::stable_sort(by_first.begin(), by_first.end(), [&](size_t a, size_t b) {
    return p.buffers[a].first < p.buffers[b].first;
  });
  std::optional<std::pair<std::pair<size_t, size_t>, Error>> failure;
  std::vector<size_t> active;
  for (size_t b : by_first) {
    const Buffer& y = p.buffers[b];
    std::erase_if(active, [&](size_t a) { return p.buffers[a].last < y.first; });
    for (size_t a : active) {
      const Buffer& x = p.buffers[a];
      const Placement& px = plan.placements[a];
      const Placement& py = plan.placements[b];
      if (px.region != py.region) continue;
      if (px.offset >= py.offset + y.size || py.offset >= px.offset + x.size) continue;
      const std::pair<size_t, size_t> pair = std::minmax(a, b);
      if (failure && failure->first < pair) continue;
      const int lo = static_cast<int>(pair.first), hi = static_cast<int>(pair.second);
      const auto it = permission.find({lo, hi});
      Status s = CheckOverlap(p, plan, lo, hi, it == permission.end() ? nullptr : it->second);
      if (!s.ok()) failure.emplace(pair, s.error());
    }
    active.push_back(b);
  }
  if (failure) return failure->second;
  for (size_t r = 0; r < p.regions.size() && r < plan.regions.size(); ++r) {
    int64_t top = 0;
    for (size_t b = 0; b < p.buffers.size(); ++b) {
      if (plan.placements[b].region == static_cast<int>(r)) {
        top = std::max(top, plan.placements[b].offset + p.buffers[b].size);
      }
    }
    if (plan.regions[r].used < top || plan.regions[r].used > p.regions[r].capacity) {
      return Error::Internal("verify: region '" + p.regions[r].name + "' reports " +
                   std::to_string(plan.regions[r].used) + " bytes used, buffers reach " +
                   std::to_string(top));
    }
  }
  return OkStatus();
}

}  // namespace tinyforge::plan
