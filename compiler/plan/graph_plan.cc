// Graph-level planning: order, lifetimes, in-place decisions, then placement (place.cc)
// and verification (verify.cc).
#include "plan/graph_plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

namespace tinyforge::plan {
namespace {

int64_t AlignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }
int64_t AlignDown(int64_t v, int64_t a) { return v >= 0 ? v / a * a : -AlignUp(-v, a); }

Status CheckGraph(const GraphSpec& g) {
  const int nt = static_cast<int>(g.tensors.size());
  std::vector<int> producer(g.tensors.size(), -1);
  for (const TensorSpec& t : g.tensors) {
    if (t.bytes <= 0) return Error::Internal("plan: tensor '" + t.name + "' has no bytes");
  }
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const OpSpec& op = g.ops[k];
    for (int t : op.inputs) {
      if (t < 0 || t >= nt) return Error::Internal("plan: op '" + op.name + "' reads an unknown tensor");
      if (!g.tensors[static_cast<size_t>(t)].graph_input && producer[static_cast<size_t>(t)] < 0) {
        return Error::Internal("plan: op '" + op.name + "' reads '" + g.tensors[static_cast<size_t>(t)].name +
                     "' before it is produced");
      }
    }
    if (op.outputs.empty()) return Error::Internal("plan: op '" + op.name + "' has no output");
    for (int t : op.outputs) {
      if (t < 0 || t >= nt) return Error::Internal("plan: op '" + op.name + "' writes an unknown tensor");
      if (producer[static_cast<size_t>(t)] >= 0 || g.tensors[static_cast<size_t>(t)].graph_input) {
        return Error::Internal("plan: tensor '" + g.tensors[static_cast<size_t>(t)].name +
                     "' is produced twice");
      }
      producer[static_cast<size_t>(t)] = static_cast<int>(k);
    }
    if (op.scratch_bytes < 0) return Error::Internal("plan: op '" + op.name + "' has negative scratch");
    if (op.in_place != InPlace::kNone &&
        (op.in_place_input < 0 || static_cast<size_t>(op.in_place_input) >= op.inputs.size())) {
      return Error::Internal("plan: op '" + op.name + "' names an in-place input it lacks");
    }
    if (op.pipe.stages > 0) {
      const rt::Pipe& pp = op.pipe;
      const rt::StreamGeometry& first = pp.g[0];
      const rt::StreamGeometry& last = pp.g[pp.stages - 1];
      if (op.in_place != InPlace::kStream || !rt::PipeValid(pp) ||
          int64_t{first.in_units} * first.in_unit_bytes !=
              g.tensors[static_cast<size_t>(op.inputs[static_cast<size_t>(op.in_place_input)])].bytes ||
          rt::StreamOutBytes(last) != g.tensors[static_cast<size_t>(op.outputs[0])].bytes) {
        return Error::Internal("plan: op '" + op.name + "': pipe does not match its tensors");
      }
    }
    for (const rt::StreamGeometry& s : op.stream_options) {
      if (op.in_place != InPlace::kStream || op.pipe.stages > 0) break;
      const int64_t in =
          g.tensors[static_cast<size_t>(op.inputs[static_cast<size_t>(op.in_place_input)])].bytes;
      const int64_t out = g.tensors[static_cast<size_t>(op.outputs[0])].bytes;
      if (s.units < 1 || s.in_units < 1 || s.in_unit_bytes < 1 || s.out_unit_bytes < 1 ||
          s.stride < 1 || s.pad < 0 || s.extent < 1 || s.rows_per_unit != 1 ||
          s.last_unit_bytes != 0 || int64_t{s.in_units} * s.in_unit_bytes != in ||
          int64_t{s.units} * s.out_unit_bytes != out) {
        return Error::Internal("plan: op '" + op.name + "': stream geometry does not match its tensors");
      }
    }
    for (int32_t rows : op.stream_min_rows) {
      if (rows < 1) return Error::Internal("plan: op '" + op.name + "': stream_min_rows < 1");
    }
  }
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (!g.tensors[t].graph_input && producer[t] < 0) {
      return Error::Internal("plan: tensor '" + g.tensors[t].name + "' is never produced");
    }
  }
  return OkStatus();
}

// Per-order facts: lifetimes and in-place decisions.
struct Schedule {
  std::vector<int> pos;               // op -> step
  std::vector<int> first, last;       // tensor lifetimes in steps
  std::vector<StreamChoice> streams;  // per op
  std::vector<bool> aliased;          // per op
};

// The fewest rows per kernel call of op's stream option i (OpSpec::stream_min_rows).
int32_t MinRows(const OpSpec& op, size_t i) {
  return i < op.stream_min_rows.size() ? std::max(op.stream_min_rows[i], 1) : 1;
}

// The best stream choice per op (independent of the order).
std::vector<StreamChoice> BestStreams(const GraphSpec& g, const PlanOptions& o) {
  std::vector<StreamChoice> best(g.ops.size());
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const OpSpec& op = g.ops[k];
    if (op.pipe.stages > 0) {
      best[k] = o.in_place ? ChoosePipe(op.pipe, o.align) : DisjointPipe(op.pipe, o.align);
      continue;
    }
    if (!o.in_place || op.in_place != InPlace::kStream) continue;
    for (size_t i = 0; i < op.stream_options.size(); ++i) {
      StreamChoice c = ChooseStream(rt::StreamBlocks(op.stream_options[i], MinRows(op, i)), o.align);
      c.option = static_cast<int>(i);
      if (best[k].option < 0 || c.footprint < best[k].footprint) best[k] = c;
    }
  }
  return best;
}

// Whether op runs in place by aliasing (rather than by a stream) when it runs in place.
bool Aliases(const OpSpec& op) { return op.in_place == InPlace::kAlias || op.alias_whole; }

// Whether op k may overlap its in-place input with its output, given the lifetimes.
bool InPlaceAllowed(const GraphSpec& g, size_t k, const std::vector<int>& last, int step) {
  const OpSpec& op = g.ops[k];
  if (op.in_place == InPlace::kNone || op.outputs.size() != 1) return false;
  const int in = op.inputs[static_cast<size_t>(op.in_place_input)];
  const TensorSpec& ti = g.tensors[static_cast<size_t>(in)];
  const TensorSpec& to = g.tensors[static_cast<size_t>(op.outputs[0])];
  if (ti.graph_output || last[static_cast<size_t>(in)] != step) return false;
  if (std::count(op.inputs.begin(), op.inputs.end(), in) != 1) return false;
  if (!ti.pin.empty() && !to.pin.empty() && ti.pin != to.pin) return false;
  return !Aliases(op) || ti.bytes == to.bytes;
}

Schedule MakeSchedule(const GraphSpec& g, const std::vector<int>& order,
                      const std::vector<StreamChoice>& best, const PlanOptions& o) {
  Schedule s;
  const int n = static_cast<int>(order.size());
  s.pos.assign(g.ops.size(), 0);
  for (int i = 0; i < n; ++i) s.pos[static_cast<size_t>(order[static_cast<size_t>(i)])] = i;
  s.first.assign(g.tensors.size(), 0);
  s.last.assign(g.tensors.size(), 0);
  for (size_t k = 0; k < g.ops.size(); ++k) {
    for (int t : g.ops[k].outputs) s.first[static_cast<size_t>(t)] = s.pos[k];
  }
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    s.last[t] = g.tensors[t].graph_output ? std::max(n - 1, s.first[t]) : s.first[t];
  }
  for (size_t k = 0; k < g.ops.size(); ++k) {
    for (int t : g.ops[k].inputs) {
      s.last[static_cast<size_t>(t)] = std::max(s.last[static_cast<size_t>(t)], s.pos[k]);
    }
  }
  s.streams.assign(g.ops.size(), StreamChoice{});
  s.aliased.assign(g.ops.size(), false);
  // Tensors tied by in-place ops share bytes, so they must agree on a pinned region.
  std::vector<int> root(g.tensors.size());
  std::vector<std::string> pin(g.tensors.size());
  for (size_t t = 0; t < g.tensors.size(); ++t)
    root[t] = static_cast<int>(t), pin[t] = g.tensors[t].pin;
  auto find = [&](int t) {
    while (root[static_cast<size_t>(t)] != t) {
      root[static_cast<size_t>(t)] = root[static_cast<size_t>(root[static_cast<size_t>(t)])];
      t = root[static_cast<size_t>(t)];
    }
    return t;
  };
  // A pipe runs as one whether or not its output may overlap its input.
  for (size_t k = 0; k < g.ops.size(); ++k) {
    if (g.ops[k].pipe.stages > 0) s.streams[k] = DisjointPipe(g.ops[k].pipe, o.align);
  }
  for (size_t k = 0; k < g.ops.size(); ++k) {
    if (!o.in_place || !InPlaceAllowed(g, k, s.last, s.pos[k])) continue;
    const OpSpec& op = g.ops[k];
    const int ri = find(op.inputs[static_cast<size_t>(op.in_place_input)]);
    const int ro = find(op.outputs[0]);
    const std::string& pi = pin[static_cast<size_t>(ri)];
    const std::string& po = pin[static_cast<size_t>(ro)];
    if (!pi.empty() && !po.empty() && pi != po) continue;
    const std::string merged = pi.empty() ? po : pi;
    if (Aliases(op)) {
      s.aliased[k] = true;
    } else if (best[k].option >= 0 && best[k].in_place) {
      const int64_t in =
          g.tensors[static_cast<size_t>(op.inputs[static_cast<size_t>(op.in_place_input)])].bytes;
      const int64_t out = g.tensors[static_cast<size_t>(op.outputs[0])].bytes;
      if (best[k].footprint >= AlignUp(in, o.align) + AlignUp(out, o.align)) continue;
      s.streams[k] = best[k];
    } else {
      continue;
    }
    root[static_cast<size_t>(ri)] = ro;
    pin[static_cast<size_t>(ro)] = merged;
  }
  return s;
}

// Bytes live at each step given a schedule (what the order search minimizes).
int64_t PeakOf(const GraphSpec& g, const std::vector<int>& order, const Schedule& s,
               const PlanOptions& o) {
  const int n = static_cast<int>(order.size());
  std::vector<int64_t> live(static_cast<size_t>(std::max(n, 1)) + 1, 0);  // deltas, then sums
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const int64_t bytes = AlignUp(g.tensors[t].bytes, o.align);
    live[static_cast<size_t>(s.first[t])] += bytes;
    live[static_cast<size_t>(s.last[t]) + 1] -= bytes;
  }
  for (size_t i = 1; i < live.size(); ++i) live[i] += live[i - 1];
  int64_t peak = 0;
  for (int i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(order[static_cast<size_t>(i)]);
    const OpSpec& op = g.ops[k];
    int64_t v = live[static_cast<size_t>(i)] + AlignUp(op.scratch_bytes, o.align);
    if (s.aliased[k] || s.streams[k].option >= 0) {
      const int64_t in = AlignUp(
          g.tensors[static_cast<size_t>(op.inputs[static_cast<size_t>(op.in_place_input)])].bytes,
          o.align);
      const int64_t out = AlignUp(g.tensors[static_cast<size_t>(op.outputs[0])].bytes, o.align);
      v -= s.aliased[k] ? in : in + out - s.streams[k].footprint;
    }
    peak = std::max(peak, v);
  }
  return peak;
}

// Depth-first search over topological orders with memoization of the best peak reaching
// each set of executed ops; the first descent takes the cheapest ready op, so a good
// order exists even when the budget runs out.
class OrderSearch {
 public:
  OrderSearch(const GraphSpec& g, const PlanOptions& o) : g_(g), o_(o) {
    const size_t n = g.ops.size();
    best_streams_ = BestStreams(g, o);
    consumers_.assign(g.tensors.size(), 0);
    producer_.assign(g.tensors.size(), -1);
    for (size_t k = 0; k < n; ++k) {
      for (int t : g.ops[k].inputs) ++consumers_[static_cast<size_t>(t)];
      for (int t : g.ops[k].outputs) producer_[static_cast<size_t>(t)] = static_cast<int>(k);
    }
  }

  std::vector<int> Run() {
    const size_t n = g_.ops.size();
    done_.assign(n, false);
    remaining_ = consumers_;
    live_ = 0;
    dead_inputs_ = 0;
    for (size_t t = 0; t < g_.tensors.size(); ++t) {
      if (!g_.tensors[t].graph_input) continue;
      // An input nobody reads is live during the first op only.
      if (consumers_[t] > 0 || g_.tensors[t].graph_output) {
        live_ += Bytes(static_cast<int>(t));
      } else {
        dead_inputs_ += Bytes(static_cast<int>(t));
      }
    }
    best_peak_ = std::numeric_limits<int64_t>::max();
    if (static_cast<int64_t>(n) > o_.max_search_ops) return FirstDescent();
    Dfs(0);
    return best_order_;
  }

 private:
  int64_t Bytes(int t) const { return AlignUp(g_.tensors[static_cast<size_t>(t)].bytes, o_.align); }

  bool Ready(size_t k) const {
    if (done_[k]) return false;
    for (int t : g_.ops[k].inputs) {
      const int p = producer_[static_cast<size_t>(t)];
      if (p >= 0 && !done_[static_cast<size_t>(p)]) return false;
    }
    return true;
  }

  // Bytes in use while op k runs next, and the bytes live after it.
  std::pair<int64_t, int64_t> Step(size_t k) const {
    const OpSpec& op = g_.ops[k];
    int64_t during =
        live_ + AlignUp(op.scratch_bytes, o_.align) + (order_.empty() ? dead_inputs_ : 0);
    for (int t : op.outputs) during += Bytes(t);
    int64_t after = live_;
    for (int t : op.outputs) {
      const TensorSpec& ts = g_.tensors[static_cast<size_t>(t)];
      if (consumers_[static_cast<size_t>(t)] > 0 || ts.graph_output) after += Bytes(t);
    }
    // Inputs whose last consumer is k die after it.
    std::vector<int> seen;
    for (int t : op.inputs) {
      if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
      seen.push_back(t);
      const int uses = static_cast<int>(std::count(op.inputs.begin(), op.inputs.end(), t));
      if (remaining_[static_cast<size_t>(t)] == uses &&
          !g_.tensors[static_cast<size_t>(t)].graph_output) {
        after -= Bytes(t);
      }
    }
    if (o_.in_place && op.in_place != InPlace::kNone && op.outputs.size() == 1) {
      const int in = op.inputs[static_cast<size_t>(op.in_place_input)];
      const TensorSpec& ti = g_.tensors[static_cast<size_t>(in)];
      const TensorSpec& to = g_.tensors[static_cast<size_t>(op.outputs[0])];
      const bool dies = remaining_[static_cast<size_t>(in)] == 1 && !ti.graph_output &&
                        std::count(op.inputs.begin(), op.inputs.end(), in) == 1;
      const bool pins = ti.pin.empty() || to.pin.empty() || ti.pin == to.pin;
      if (dies && pins) {
        if (Aliases(op) && ti.bytes == to.bytes) {
          during -= Bytes(in);
        } else if (op.in_place == InPlace::kStream && best_streams_[k].option >= 0 &&
                   best_streams_[k].footprint < Bytes(in) + Bytes(op.outputs[0])) {
          during -= Bytes(in) + Bytes(op.outputs[0]) - best_streams_[k].footprint;
        }
      }
    }
    return {during, after};
  }

  void Apply(size_t k, bool undo) {
    done_[k] = !undo;
    for (int t : g_.ops[k].inputs) remaining_[static_cast<size_t>(t)] += undo ? 1 : -1;
  }

  // What Dfs's first descent takes: at each step the ready op with the least (bytes in use
  // while it runs, index); ready ops kept incrementally.
  std::vector<int> FirstDescent() {
    const size_t n = g_.ops.size();
    std::vector<std::vector<int>> readers(g_.tensors.size());
    std::vector<int> pending(n, 0);
    std::vector<int> ready;
    for (size_t k = 0; k < n; ++k) {
      for (int t : g_.ops[k].inputs) {
        readers[static_cast<size_t>(t)].push_back(static_cast<int>(k));
        if (producer_[static_cast<size_t>(t)] >= 0) ++pending[k];
      }
      if (pending[k] == 0) ready.push_back(static_cast<int>(k));
    }
    while (!ready.empty()) {
      size_t pick = 0;
      int64_t pick_during = 0;
      for (size_t i = 0; i < ready.size(); ++i) {
        const int64_t during = Step(static_cast<size_t>(ready[i])).first;
        if (i == 0 || during < pick_during || (during == pick_during && ready[i] < ready[pick])) {
          pick = i, pick_during = during;
        }
      }
      const size_t k = static_cast<size_t>(ready[pick]);
      ready[pick] = ready.back();
      ready.pop_back();
      live_ = Step(k).second;
      Apply(k, false);
      order_.push_back(static_cast<int>(k));
      for (int t : g_.ops[k].outputs) {
        for (int r : readers[static_cast<size_t>(t)]) {
          if (--pending[static_cast<size_t>(r)] == 0) ready.push_back(r);
        }
      }
    }
    return order_;
  }

  void Dfs(int64_t peak) {
    if (++states_ > o_.max_search_states && !best_order_.empty()) return;
    if (order_.size() == g_.ops.size()) {
      if (peak < best_peak_) best_peak_ = peak, best_order_ = order_;
      return;
    }
    std::vector<uint64_t> key((g_.ops.size() + 63) / 64, 0);
    for (size_t k = 0; k < g_.ops.size(); ++k) {
      if (done_[k]) key[k / 64] |= uint64_t{1} << (k % 64);
    }
    auto it = memo_.find(key);
    if (it != memo_.end() && it->second <= peak) return;
    memo_[key] = peak;
    std::vector<std::pair<int64_t, size_t>> ready;
    for (size_t k = 0; k < g_.ops.size(); ++k) {
      if (Ready(k)) ready.emplace_back(Step(k).first, k);
    }
    std::stable_sort(ready.begin(), ready.end());
    for (const auto& [during, k] : ready) {
      const int64_t next_peak = std::max(peak, during);
      if (next_peak >= best_peak_) continue;
      const int64_t saved = live_;
      live_ = Step(k).second;
      Apply(k, false);
      order_.push_back(static_cast<int>(k));
      Dfs(next_peak);
      order_.pop_back();
      Apply(k, true);
      live_ = saved;
    }
  }

  const GraphSpec& g_;
  const PlanOptions& o_;
  std::vector<StreamChoice> best_streams_;
  std::vector<int> consumers_, producer_, remaining_;
  std::vector<bool> done_;
  std::vector<int> order_, best_order_;
  int64_t live_ = 0, best_peak_ = 0, states_ = 0, dead_inputs_ = 0;
  std::map<std::vector<uint64_t>, int64_t> memo_;
};

// Builds the placement problem for `order` with the in-place links in `s`, places it and
// verifies the result.
Expected<MemoryPlan> PlaceSchedule(const GraphSpec& g, const std::vector<Region>& regions,
                                   const PlanOptions& o, const std::vector<int>& order,
                                   const Schedule& s) {
  MemoryPlan mp;
  mp.order = order;
  mp.streams = s.streams;
  mp.aliased = s.aliased;
  mp.lower_bound = PeakOf(g, order, s, o);
  Problem& p = mp.problem;
  p.regions = regions;
  for (int k : order) p.step_names.push_back(g.ops[static_cast<size_t>(k)].name);
  // Heat: work per byte of the ops that touch a buffer.
  std::vector<double> work(g.tensors.size(), 0.0);
  for (const OpSpec& op : g.ops) {
    for (int t : op.inputs) work[static_cast<size_t>(t)] += static_cast<double>(op.macs);
    for (int t : op.outputs) work[static_cast<size_t>(t)] += static_cast<double>(op.macs);
  }
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const TensorSpec& ts = g.tensors[t];
    p.buffers.push_back({ts.name, ts.bytes, o.align, s.first[t], s.last[t], ts.pin,
                         work[t] / static_cast<double>(ts.bytes)});
  }
  std::vector<int> scratch_buf(g.ops.size(), -1), line_buf(g.ops.size(), -1);
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const OpSpec& op = g.ops[k];
    const int step = s.pos[k];
    if (op.scratch_bytes > 0) {
      scratch_buf[k] = static_cast<int>(p.buffers.size());
      p.buffers.push_back(
          {op.name + ".scratch", op.scratch_bytes, o.align, step, step, "",
           2.0 * static_cast<double>(op.macs) / static_cast<double>(op.scratch_bytes)});
    }
    const int in =
        op.in_place != InPlace::kNone ? op.inputs[static_cast<size_t>(op.in_place_input)] : -1;
    if (s.aliased[k]) {
      p.overlaps.push_back({in, op.outputs[0], step, OverlapKind::kAlias, 0, {}, -1});
    } else if (s.streams[k].option >= 0) {
      const StreamChoice& c = s.streams[k];
      line_buf[k] = static_cast<int>(p.buffers.size());
      p.buffers.push_back({op.name + ".line", c.line_bytes, o.align, step, step,
                           g.tensors[static_cast<size_t>(op.outputs[0])].pin,
                           2.0 * static_cast<double>(op.macs) / static_cast<double>(c.line_bytes)});
      if (c.in_place) {
        p.overlaps.push_back({in, op.outputs[0], step, OverlapKind::kStream, c.delta, c.geometry,
                              line_buf[k], c.pipe});
      }
    }
  }
  TF_ASSIGN_OR_RETURN(mp.plan, Place(p));
  TF_RETURN_IF_ERROR(Verify(p, mp.plan));
  mp.tensors.assign(mp.plan.placements.begin(),
                    mp.plan.placements.begin() + static_cast<std::ptrdiff_t>(g.tensors.size()));
  mp.scratch.assign(g.ops.size(), Placement{});
  mp.line_buffers.assign(g.ops.size(), Placement{});
  for (size_t k = 0; k < g.ops.size(); ++k) {
    if (scratch_buf[k] >= 0)
      mp.scratch[k] = mp.plan.placements[static_cast<size_t>(scratch_buf[k])];
    if (line_buf[k] >= 0) mp.line_buffers[k] = mp.plan.placements[static_cast<size_t>(line_buf[k])];
  }
  mp.regions = mp.plan.regions;
  for (const RegionUsage& u : mp.regions) mp.total_bytes += u.used;
  return mp;
}

// In-place links the placement did not take (input and output do not share bytes).
std::vector<size_t> UnusedLinks(const GraphSpec& g, const MemoryPlan& mp) {
  std::vector<size_t> unused;
  for (size_t k = 0; k < g.ops.size(); ++k) {
    if (!mp.aliased[k] && (mp.streams[k].option < 0 || !mp.streams[k].in_place)) continue;
    const OpSpec& op = g.ops[k];
    const Placement& a =
        mp.tensors[static_cast<size_t>(op.inputs[static_cast<size_t>(op.in_place_input)])];
    const Placement& b = mp.tensors[static_cast<size_t>(op.outputs[0])];
    const int64_t sa =
        g.tensors[static_cast<size_t>(op.inputs[static_cast<size_t>(op.in_place_input)])].bytes;
    const int64_t sb = g.tensors[static_cast<size_t>(op.outputs[0])].bytes;
    const bool shared =
        a.region == b.region && a.offset < b.offset + sb && b.offset < a.offset + sa;
    if (!shared) unused.push_back(k);
  }
  return unused;
}

// Widening (docs/decisions.md 54): each streamed op, in op order, takes the most output
// rows per kernel call that leave the plan's total bytes as they are: first no streaming at
// all (whole-tensor calls), then blocks of StreamBlockSizes rows, largest first, down to
// the rows it has (its stream_min_rows). Fewer
// calls keep the fast kernels' blocking across rows and pay their per-call setup less
// often; the smallest plan's RAM is kept.
void WidenStreams(const GraphSpec& g, const std::vector<Region>& regions, const PlanOptions& o,
                  const std::vector<int>& order, Schedule* s, MemoryPlan* best) {
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const StreamChoice cur = s->streams[k];
    if (cur.option < 0 || cur.pipe.stages > 0) continue;  // a pipe's blocks are its own
    const rt::StreamGeometry& rows = g.ops[k].stream_options[static_cast<size_t>(cur.option)];
    std::vector<StreamChoice> wider = {StreamChoice{}};  // not streamed
    const std::vector<int32_t> sizes =
        StreamBlockSizes(rows.units, MinRows(g.ops[k], static_cast<size_t>(cur.option)));
    for (auto it = sizes.rbegin(); it != sizes.rend() && *it > cur.geometry.rows_per_unit;
         ++it) {
      StreamChoice c = ChooseStream(rt::StreamBlocks(rows, *it), o.align);
      c.option = cur.option;
      wider.push_back(c);
    }
    for (const StreamChoice& c : wider) {
      s->streams[k] = c;
      auto next = PlaceSchedule(g, regions, o, order, *s);
      if (next.ok() && next->total_bytes <= best->total_bytes) {
        *best = std::move(*next);
        break;
      }
      s->streams[k] = cur;
    }
  }
}

// Places with every in-place link offered, then again without the links the placement did
// not use (their line buffers only cost bytes), until nothing changes.
Expected<MemoryPlan> PlanOrder(const GraphSpec& g, const std::vector<Region>& regions,
                               const PlanOptions& o, const std::vector<int>& order) {
  Schedule s = MakeSchedule(g, order, BestStreams(g, o), o);
  TF_ASSIGN_OR_RETURN(MemoryPlan best, PlaceSchedule(g, regions, o, order, s));
  for (int round = 0; round < 4; ++round) {
    const std::vector<size_t> unused = UnusedLinks(g, best);
    if (unused.empty()) break;
    for (size_t k : unused) {
      s.streams[k] = g.ops[k].pipe.stages > 0 ? DisjointPipe(g.ops[k].pipe, o.align) : StreamChoice{};
      s.aliased[k] = false;
    }
    auto next = PlaceSchedule(g, regions, o, order, s);
    if (!next.ok()) break;
    best = std::move(*next);
  }
  if (o.widen_streams) WidenStreams(g, regions, o, order, &s, &best);
  // Links still unused are harmless (a streamed op whose output does not overlap its input
  // is still correct); report them as not in place.
  for (size_t k : UnusedLinks(g, best)) best.aliased[k] = false;
  return best;
}

}  // namespace

std::vector<int32_t> StreamBlockSizes(int32_t rows, int32_t least) {
  least = std::max(least, 1);
  std::vector<int32_t> sizes = {std::min(least, rows)};
  for (int32_t k = 2; k < rows; k *= 2) {
    if (k > least) sizes.push_back(k);
  }
  return sizes;
}

namespace {
// ChooseStream and ChoosePipe: in and out bytes, output unit bytes, and the fewest slots for
// an output at `delta` from the input (0: none works).
// Candidates: output at the input's start or (when it is larger) ending where the input
// ends, then moved down by whole output units: each unit of headroom can save a slot.
template <class Slots>
StreamChoice ChooseStreamBy(int64_t in, int64_t out, int64_t out_unit, int64_t align,
                            Slots&& min_slots) {
  std::vector<int64_t> deltas = {0, AlignDown(in - out, align)};
  const int64_t base = std::min<int64_t>(0, AlignDown(in - out, align));
  for (int k = 1; k <= 8; ++k) deltas.push_back(AlignDown(base - k * out_unit, align));
  StreamChoice best;
  for (int64_t d : deltas) {
    StreamChoice c;
    c.delta = d;
    c.slots = min_slots(d);
    if (c.slots < 1) continue;
    c.line_bytes = AlignUp(int64_t{c.slots} * out_unit, align);
    c.footprint = std::max(AlignUp(in, align), d + AlignUp(out, align)) - std::min<int64_t>(0, d) +
                  c.line_bytes;
    const auto drift = [&](int64_t delta) { return delta > base ? delta - base : base - delta; };
    if (best.slots == 0 || c.footprint < best.footprint ||
        (c.footprint == best.footprint && drift(c.delta) < drift(best.delta))) {
      best = c;
    }
  }
  return best;
}
}  // namespace

StreamChoice ChoosePipe(const rt::Pipe& pipe, int64_t align) {
  if (!rt::PipeValid(pipe)) return StreamChoice{};
  const rt::StreamGeometry& first = pipe.g[0];
  const rt::StreamGeometry& last = pipe.g[pipe.stages - 1];
  StreamChoice c = ChooseStreamBy(int64_t{first.in_units} * first.in_unit_bytes,
                                  rt::StreamOutBytes(last), last.out_unit_bytes, align,
                                  [&](int64_t d) { return rt::MinPipeSlots(pipe, 0, d); });
  if (c.slots < 1) return StreamChoice{};
  c.option = 0;
  c.geometry = last;
  c.pipe = pipe;
  return c;
}

StreamChoice DisjointPipe(const rt::Pipe& pipe, int64_t align) {
  if (!rt::PipeValid(pipe)) return StreamChoice{};
  const rt::StreamGeometry& first = pipe.g[0];
  const rt::StreamGeometry& last = pipe.g[pipe.stages - 1];
  StreamChoice c;
  c.option = 0;
  c.geometry = last;
  c.pipe = pipe;
  c.in_place = false;
  c.slots = 1;
  c.line_bytes = AlignUp(last.out_unit_bytes, align);
  c.footprint = AlignUp(int64_t{first.in_units} * first.in_unit_bytes, align) +
                AlignUp(rt::StreamOutBytes(last), align) + c.line_bytes;
  return c;
}

StreamChoice ChooseStream(const rt::StreamGeometry& g, int64_t align) {
  StreamChoice c = ChooseStreamBy(int64_t{g.in_units} * g.in_unit_bytes, rt::StreamOutBytes(g),
                                  g.out_unit_bytes, align,
                                  [&](int64_t d) { return rt::MinStreamSlots(g, 0, d); });
  c.geometry = g;
  return c;
}

int64_t LiveBytesPeak(const GraphSpec& g, const std::vector<int>& order, const PlanOptions& o) {
  return PeakOf(g, order, MakeSchedule(g, order, BestStreams(g, o), o), o);
}

std::vector<int> ChooseOrder(const GraphSpec& g, const PlanOptions& o) {
  return OrderSearch(g, o).Run();
}

namespace {

// Each op as late as its readers allow: a depth-first walk from the graph's outputs back
// through producers, an op's inputs visited deepest chain first, each op emitted once its
// producers are; ops no output depends on follow in index order. An unrolled recurrent
// layer's per-step slices then run next to their step: the search's first descent (graphs
// over max_search_ops) takes the cheapest ready op, and the slices, cheap and always ready,
// all ran before the first step and stayed live together.
std::vector<int> DemandOrder(const GraphSpec& g) {
  const size_t n = g.ops.size();
  std::vector<int> producer(g.tensors.size(), -1);
  for (size_t k = 0; k < n; ++k) {
    for (int t : g.ops[k].outputs) producer[static_cast<size_t>(t)] = static_cast<int>(k);
  }
  // Longest producer chain to each op (the ops are in a valid order).
  std::vector<int64_t> depth(n, 0);
  for (size_t k = 0; k < n; ++k) {
    for (int t : g.ops[k].inputs) {
      const int p = producer[static_cast<size_t>(t)];
      if (p >= 0) depth[k] = std::max(depth[k], depth[static_cast<size_t>(p)] + 1);
    }
  }
  // Each op's producers, deepest first (ties in input order).
  std::vector<std::vector<int>> before(n);
  for (size_t k = 0; k < n; ++k) {
    for (int t : g.ops[k].inputs) {
      const int p = producer[static_cast<size_t>(t)];
      if (p >= 0) before[k].push_back(p);
    }
    std::stable_sort(before[k].begin(), before[k].end(), [&](int a, int b) {
      return depth[static_cast<size_t>(a)] > depth[static_cast<size_t>(b)];
    });
  }
  std::vector<int> order;
  order.reserve(n);
  std::vector<uint8_t> state(n, 0);  // 0 new, 1 on the stack, 2 emitted
  std::vector<std::pair<int, size_t>> stack;
  auto visit = [&](int root) {
    if (state[static_cast<size_t>(root)] != 0) return;
    stack.push_back({root, 0});
    state[static_cast<size_t>(root)] = 1;
    while (!stack.empty()) {
      auto& [k, next] = stack.back();
      const std::vector<int>& b = before[static_cast<size_t>(k)];
      if (next < b.size()) {
        const int p = b[next++];
        if (state[static_cast<size_t>(p)] == 0) {
          state[static_cast<size_t>(p)] = 1;
          stack.push_back({p, 0});
        }
        continue;
      }
      state[static_cast<size_t>(k)] = 2;
      order.push_back(k);
      stack.pop_back();
    }
  };
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].graph_output && producer[t] >= 0) visit(producer[t]);
  }
  for (size_t k = 0; k < n; ++k) visit(static_cast<int>(k));
  return order;
}

}  // namespace

Expected<MemoryPlan> PlanGraph(const GraphSpec& g, const std::vector<Region>& regions,
                               const PlanOptions& options) {
  TF_RETURN_IF_ERROR(CheckGraph(g));
  std::vector<int> given(g.ops.size());
  for (size_t k = 0; k < given.size(); ++k) given[k] = static_cast<int>(k);
  if (!options.reorder || g.ops.empty()) return PlanOrder(g, regions, options, given);
  const std::vector<int> chosen = ChooseOrder(g, options);
  auto a = PlanOrder(g, regions, options, chosen);
  if (chosen != given) {
    auto b = PlanOrder(g, regions, options, given);
    if (!a.ok() || (b.ok() && b->total_bytes < a->total_bytes)) a = std::move(b);
  }
  // Graphs the search only descends once: the demand order too, where it is another order.
  if (static_cast<int64_t>(g.ops.size()) > options.max_search_ops) {
    const std::vector<int> demand = DemandOrder(g);
    if (demand != chosen && demand != given) {
      auto c = PlanOrder(g, regions, options, demand);
      if (c.ok() && (!a.ok() || c->total_bytes < a->total_bytes)) a = std::move(c);
    }
  }
  return a;
}

}  // namespace tinyforge::plan
