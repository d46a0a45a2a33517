// Placement: buffers -> regions -> offsets. Overlap permissions are optional: a buffer may
// sit on a partner's bytes exactly at the permitted relative offset when that is the lowest
// offset available, so in-place chains never drag each other around (no drift).
#include <algorithm>
#include <functional>
#include <numeric>
#include <set>
#include <string>

#include "plan/problem.h"

namespace tinyforge::plan {
namespace {

int64_t AlignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

std::string Grouped(int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v), out = v < 0 ? "-" : "";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

// Per buffer: the overlaps it takes part in.
std::vector<std::vector<const Overlap*>> OverlapsOf(const Problem& p) {
  std::vector<std::vector<const Overlap*>> of(p.buffers.size());
  for (const Overlap& o : p.overlaps) {
    of[static_cast<size_t>(o.in)].push_back(&o);
    of[static_cast<size_t>(o.out)].push_back(&o);
  }
  return of;
}

// The buffers placed so far in one region, indexed by step: a buffer only meets the placed
// buffers live during its own lifetime, so placing one costs O(those) rather than O(placed).
class RegionState {
 public:
  RegionState(const Problem& p, const std::vector<std::vector<const Overlap*>>& of)
      : p_(&p), of_(&of), at_(p.buffers.size(), -1) {}

  // The lowest offset where buffer b shares bytes with no placed buffer live at the same
  // time, except a permitted partner at exactly the permitted offset.
  int64_t Lowest(int b) const {
    const Buffer& buf = p_->buffers[static_cast<size_t>(b)];
    const std::vector<int> live = LiveDuring(buf);
    std::vector<int64_t> candidates = {0, AlignUp(used_, buf.align)};
    for (int q : live) {
      candidates.push_back(AlignUp(at_[static_cast<size_t>(q)] +
                                       p_->buffers[static_cast<size_t>(q)].size,
                                   buf.align));
    }
    for (const Overlap* o : (*of_)[static_cast<size_t>(b)]) {
      if (o->in != b && at_[static_cast<size_t>(o->in)] >= 0) {
        candidates.push_back(at_[static_cast<size_t>(o->in)] + o->delta);
      }
      if (o->out != b && at_[static_cast<size_t>(o->out)] >= 0) {
        candidates.push_back(at_[static_cast<size_t>(o->out)] - o->delta);
      }
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (int64_t c : candidates) {
      if (c >= 0 && c % buf.align == 0 && Fits(b, c, live)) return c;
    }
    return AlignUp(used_, buf.align);  // never reached: above everything always fits
  }

  void Add(int b, int64_t at) {
    const Buffer& buf = p_->buffers[static_cast<size_t>(b)];
    placed_.emplace_back(b, at);
    at_[static_cast<size_t>(b)] = at;
    if (by_step_.size() <= static_cast<size_t>(buf.last)) {
      by_step_.resize(static_cast<size_t>(buf.last) + 1);
    }
    for (int s = buf.first; s <= buf.last; ++s) by_step_[static_cast<size_t>(s)].push_back(b);
    used_ = std::max(used_, at + buf.size);
  }
  int64_t used() const { return used_; }
  const std::vector<std::pair<int, int64_t>>& placed() const { return placed_; }

 private:
  // The placed buffers live at some step of buf's lifetime, each once.
  std::vector<int> LiveDuring(const Buffer& buf) const {
    std::vector<int> live;
    const int end = std::min<int>(buf.last, static_cast<int>(by_step_.size()) - 1);
    for (int s = buf.first; s <= end; ++s) {
      for (int q : by_step_[static_cast<size_t>(s)]) {
        // q was already met at the previous step unless it starts here (or this is the first).
        if (s == buf.first || p_->buffers[static_cast<size_t>(q)].first == s) live.push_back(q);
      }
    }
    return live;
  }

  bool Fits(int b, int64_t at, const std::vector<int>& live) const {
    const Buffer& buf = p_->buffers[static_cast<size_t>(b)];
    for (int q : live) {
      const Buffer& other = p_->buffers[static_cast<size_t>(q)];
      const int64_t qat = at_[static_cast<size_t>(q)];
      if (at >= qat + other.size || qat >= at + buf.size) continue;
      bool permitted = false;
      for (const Overlap* o : (*of_)[static_cast<size_t>(b)]) {
        permitted |= (o->in == q && at == qat + o->delta) || (o->out == q && qat == at + o->delta);
      }
      if (!permitted) return false;
    }
    return true;
  }

  const Problem* p_;
  const std::vector<std::vector<const Overlap*>>* of_;
  std::vector<std::pair<int, int64_t>> placed_;
  std::vector<int64_t> at_;                // per buffer: its offset here, or -1
  std::vector<std::vector<int>> by_step_;  // per step: the placed buffers live then
  int64_t used_ = 0;
};

// Greedy first fit: buffers in a heuristic order, each at its lowest offset. Three orders
// are tried and the tightest kept:
//   by size          largest first (then longest-lived): the classic greedy-by-size;
//   by size, chains  the same, but each buffer's in-place partners are placed right after it
//                    (an expanding op's large output first pulls its input and the next
//                    op's output onto its bytes before unrelated buffers take them);
//   by time          in order of first use, largest first among equals.
RegionState PlaceInRegion(const Problem& p, const std::vector<std::vector<const Overlap*>>& of,
                          std::vector<int> ids) {
  auto by_size = [&](int a, int b) {
    const Buffer& x = p.buffers[static_cast<size_t>(a)];
    const Buffer& y = p.buffers[static_cast<size_t>(b)];
    if (x.size != y.size) return x.size > y.size;
    if (x.last - x.first != y.last - y.first) return x.last - x.first > y.last - y.first;
    return a < b;
  };
  auto by_time = [&](int a, int b) {
    const Buffer& x = p.buffers[static_cast<size_t>(a)];
    const Buffer& y = p.buffers[static_cast<size_t>(b)];
    if (x.first != y.first) return x.first < y.first;
    return by_size(a, b);
  };
  std::vector<bool> mine(p.buffers.size(), false);
  for (int b : ids) mine[static_cast<size_t>(b)] = true;
  RegionState best(p, of);
  bool have = false;
  for (int heuristic = 0; heuristic < 3; ++heuristic) {
    std::vector<int> order = ids;
    std::sort(order.begin(), order.end(),
              heuristic == 2 ? std::function<bool(int, int)>(by_time)
                             : std::function<bool(int, int)>(by_size));
    RegionState s(p, of);
    std::vector<bool> done(p.buffers.size(), false);
    for (int first : order) {
      std::vector<int> stack = {first};
      while (!stack.empty()) {
        const int b = stack.back();
        stack.pop_back();
        if (done[static_cast<size_t>(b)]) continue;
        done[static_cast<size_t>(b)] = true;
        s.Add(b, s.Lowest(b));
        if (heuristic != 1) continue;
        for (const Overlap* o : of[static_cast<size_t>(b)]) {
          const int partner = o->in == b ? o->out : o->in;
          if (mine[static_cast<size_t>(partner)] && !done[static_cast<size_t>(partner)]) {
            stack.push_back(partner);
          }
        }
      }
    }
    if (!have || s.used() < best.used()) best = s, have = true;
  }
  return best;
}

Error DoesNotFit(const Problem& p, const std::vector<std::vector<const Overlap*>>& of, int region,
                 const std::vector<int>& ids) {
  const RegionState s = PlaceInRegion(p, of, ids);
  std::vector<Placement> pl(p.buffers.size());
  for (const auto& [b, at] : s.placed()) pl[static_cast<size_t>(b)] = {region, at};
  const RegionUsage u = MeasureUsage(p, pl)[static_cast<size_t>(region)];
  const Region& r = p.regions[static_cast<size_t>(region)];
  return Error("does not fit: region '" + r.name + "' needs " + Grouped(s.used()) +
               " bytes but has " + Grouped(r.capacity) + " (" + Grouped(s.used() - r.capacity) +
               " bytes missing); the peak is at " + StepLabel(p, u.peak_step) + " with " +
               Grouped(u.live_at_peak) + " bytes live");
}

}  // namespace

std::string StepLabel(const Problem& problem, int step) {
  if (step >= 0 && static_cast<size_t>(step) < problem.step_names.size()) {
    return "op '" + problem.step_names[static_cast<size_t>(step)] + "' (#" + std::to_string(step) +
           ")";
  }
  return "step " + std::to_string(step);
}

std::vector<RegionUsage> MeasureUsage(const Problem& p, const std::vector<Placement>& placements) {
  std::vector<RegionUsage> usage(p.regions.size());
  int steps = 0;
  for (const Buffer& b : p.buffers) steps = std::max(steps, b.last + 1);
  for (size_t r = 0; r < p.regions.size(); ++r) {
    RegionUsage& u = usage[r];
    u.name = p.regions[r].name;
    u.capacity = p.regions[r].capacity;
    // Sweep over the steps with the set of live (offset, end) ranges: O(sum of lifetimes).
    std::vector<std::vector<int>> starts(static_cast<size_t>(steps)), ends(static_cast<size_t>(steps));
    for (size_t b = 0; b < p.buffers.size(); ++b) {
      if (placements[b].region == static_cast<int>(r)) {
        u.used = std::max(u.used, placements[b].offset + p.buffers[b].size);
        starts[static_cast<size_t>(p.buffers[b].first)].push_back(static_cast<int>(b));
        ends[static_cast<size_t>(p.buffers[b].last)].push_back(static_cast<int>(b));
      }
    }
    std::multiset<std::pair<int64_t, int64_t>> live_set;
    auto range = [&](int b) {
      const int64_t off = placements[static_cast<size_t>(b)].offset;
      return std::make_pair(off, off + p.buffers[static_cast<size_t>(b)].size);
    };
    std::multiset<int64_t> tops;
    for (int s = 0; s < steps; ++s) {
      for (int b : starts[static_cast<size_t>(s)]) {
        live_set.insert(range(b));
        tops.insert(range(b).second);
      }
      if (s > 0) {
        for (int b : ends[static_cast<size_t>(s - 1)]) {
          live_set.erase(live_set.find(range(b)));
          tops.erase(tops.find(range(b).second));
        }
      }
      const int64_t top = tops.empty() ? 0 : *tops.rbegin();
      if (!(top == u.used && u.used > 0)) continue;  // not a candidate peak step
      const std::vector<std::pair<int64_t, int64_t>> live(live_set.begin(), live_set.end());
      int64_t bytes = 0, reach = 0;
      for (const auto& [lo, hi] : live) {  // union of the live ranges
        if (hi > reach) bytes += hi - std::max(lo, reach), reach = hi;
      }
      if (top == u.used && u.used > 0 && (u.peak_step < 0 || bytes > u.live_at_peak)) {
        u.peak_step = s;
        u.live_at_peak = bytes;
      }
    }
  }
  return usage;
}

Expected<Plan> Place(const Problem& p) {
  for (const Buffer& b : p.buffers) {
    if (b.size <= 0 || b.align <= 0 || (b.align & (b.align - 1)) != 0 || b.first > b.last ||
        b.first < 0) {
      return Error("plan: buffer '" + b.name + "' has a bad size, alignment or lifetime");
    }
  }
  for (const Overlap& o : p.overlaps) {
    const int n = static_cast<int>(p.buffers.size());
    if (o.in < 0 || o.in >= n || o.out < 0 || o.out >= n || o.in == o.out) {
      return Error("plan: an overlap names an unknown buffer");
    }
  }
  if (p.regions.empty()) return Error("plan: no memory region to place buffers in");
  const auto of = OverlapsOf(p);

  // Regions fastest first; ties keep the board's order.
  std::vector<int> by_speed(p.regions.size());
  std::iota(by_speed.begin(), by_speed.end(), 0);
  std::stable_sort(by_speed.begin(), by_speed.end(), [&](int a, int b) {
    return p.regions[static_cast<size_t>(a)].speed_rank <
           p.regions[static_cast<size_t>(b)].speed_rank;
  });
  std::vector<std::vector<int>> assigned(p.regions.size());
  std::vector<int> free_ids;
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const std::string& pin = p.buffers[b].pin;
    if (pin.empty()) {
      free_ids.push_back(static_cast<int>(b));
      continue;
    }
    int r = -1;
    for (size_t k = 0; k < p.regions.size(); ++k) {
      if (p.regions[k].name == pin) r = static_cast<int>(k);
    }
    if (r < 0) {
      return Error("plan: '" + p.buffers[b].name + "' is pinned to region '" + pin +
                   "', which the board lacks");
    }
    assigned[static_cast<size_t>(r)].push_back(static_cast<int>(b));
  }
  auto fits = [&](int r, const std::vector<int>& ids) {
    return PlaceInRegion(p, of, ids).used() <= p.regions[static_cast<size_t>(r)].capacity;
  };
  for (size_t r = 0; r < p.regions.size(); ++r) {
    if (!assigned[r].empty() && !fits(static_cast<int>(r), assigned[r])) {
      return DoesNotFit(p, of, static_cast<int>(r), assigned[r]);
    }
  }
  // Common case first: everything unpinned in the fastest region.
  const int fastest = by_speed[0];
  std::vector<int> all = assigned[static_cast<size_t>(fastest)];
  all.insert(all.end(), free_ids.begin(), free_ids.end());
  if (fits(fastest, all)) {
    assigned[static_cast<size_t>(fastest)] = all;
  } else {
    // Hottest buffers first, each into the fastest region it still fits in. Each region is
    // extended incrementally (the pinned buffers placed first, by size).
    std::stable_sort(free_ids.begin(), free_ids.end(), [&](int a, int b) {
      const Buffer& x = p.buffers[static_cast<size_t>(a)];
      const Buffer& y = p.buffers[static_cast<size_t>(b)];
      if (x.heat != y.heat) return x.heat > y.heat;
      return x.size < y.size;
    });
    std::vector<RegionState> states;
    for (size_t r = 0; r < p.regions.size(); ++r)
      states.push_back(PlaceInRegion(p, of, assigned[r]));
    for (int b : free_ids) {
      bool done = false;
      for (int r : by_speed) {
        RegionState& s = states[static_cast<size_t>(r)];
        const int64_t at = s.Lowest(b);
        if (at + p.buffers[static_cast<size_t>(b)].size <=
            p.regions[static_cast<size_t>(r)].capacity) {
          s.Add(b, at);
          assigned[static_cast<size_t>(r)].push_back(b);
          done = true;
          break;
        }
      }
      if (!done) {
        int largest = by_speed[0];
        for (int r : by_speed) {
          if (p.regions[static_cast<size_t>(r)].capacity >
              p.regions[static_cast<size_t>(largest)].capacity) {
            largest = r;
          }
        }
        std::vector<int> trial = assigned[static_cast<size_t>(largest)];
        trial.push_back(b);
        return DoesNotFit(p, of, largest, trial);
      }
    }
    // Re-place each region by size when that packs tighter (it usually does).
    Plan plan;
    plan.placements.assign(p.buffers.size(), Placement{});
    for (size_t r = 0; r < p.regions.size(); ++r) {
      RegionState best = PlaceInRegion(p, of, assigned[r]);
      if (best.used() > p.regions[r].capacity) best = states[r];
      for (const auto& [b, at] : best.placed()) {
        plan.placements[static_cast<size_t>(b)] = {static_cast<int>(r), at};
      }
    }
    plan.regions = MeasureUsage(p, plan.placements);
    return plan;
  }
  Plan plan;
  plan.placements.assign(p.buffers.size(), Placement{});
  for (size_t r = 0; r < p.regions.size(); ++r) {
    const RegionState s = PlaceInRegion(p, of, assigned[r]);
    for (const auto& [b, at] : s.placed()) {
      plan.placements[static_cast<size_t>(b)] = {static_cast<int>(r), at};
    }
  }
  plan.regions = MeasureUsage(p, plan.placements);
  return plan;
}

}  // namespace tinyforge::plan
