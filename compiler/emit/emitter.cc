// EmitProgram: encode the ops, plan memory, lay out the program.
#include "emit/emitter.h"

#include <algorithm>
#include <map>
#include <set>

#include "emit/encode_ops.h"
#include "kernels/common/rounding.h"
#include "support/text.h"
#include "tinyforge/in_place.h"

namespace tinyforge::emit {
namespace {

namespace fmt = rt::fmt;
using detail::Operand;

int64_t AlignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

// Whether the op's input zero point is folded into its bias (precompute-bias): the program
// declares it (fmt::kOpFlagZpFolded) so that the loader knows which input offset to expect.
bool ZpFolded(const ir::Op& op) {
  switch (op.type) {
    case ir::OpType::kQConv2d:
      return op.attrs_as<ir::QConv2dAttrs>().input_zp_folded;
    case ir::OpType::kQDwConv2d:
      return op.attrs_as<ir::QDwConv2dAttrs>().input_zp_folded;
    case ir::OpType::kQFc:
      return op.attrs_as<ir::QFcAttrs>().input_zp_folded;
    default:
      return false;
  }
}

// Applies --place: pins a plan tensor (by the name of any IR tensor sharing its buffer).
Status ApplyPlacements(const ir::Graph& g, const target::Board& board, const EmitOptions& o,
                       detail::Encoded& e) {
  for (const auto& [tensor, region] : o.place) {
    const auto id = g.FindTensor(tensor);
    if (!id || e.plan_tensor[static_cast<size_t>(*id)] < 0) {
      return Error("--place " + tensor + "=" + region + ": no activation tensor '" + tensor +
                   "' in the graph");
    }
    const target::MemoryRegion* m = board.Find(region);
    if (m == nullptr || m->purpose != "ram") {
      return Error("--place " + tensor + "=" + region + ": '" + region +
                   "' is not a RAM region of board " + board.name);
    }
    e.tensors[static_cast<size_t>(e.plan_tensor[static_cast<size_t>(*id)])].pin = region;
  }
  return OkStatus();
}

// --weights-in: op name -> constant segment region (code or ROM regions).
Expected<std::map<std::string, std::string>> WeightRegions(const ir::Graph& g,
                                                           const target::Board& board,
                                                           const EmitOptions& o) {
  std::map<std::string, std::string> out;
  for (const auto& [op, region] : o.weights_in) {
    if (!g.FindOp(op)) return Error("--weights-in " + op + "=" + region + ": no op '" + op + "'");
    const target::MemoryRegion* m = board.Find(region);
    if (m == nullptr) {
      return Error("--weights-in " + op + "=" + region + ": board " + board.name +
                   " has no region '" + region + "'");
    }
    if (m->purpose == "ram") {
      return Error("--weights-in " + op + "=" + region + ": '" + region +
                   "' is a RAM region; constants are read in place from code or ROM regions "
                   "(a copy to RAM at init is not supported)");
    }
    out[op] = region;
  }
  return out;
}

// The constants must fit their regions as the arenas fit theirs: each region's padded
// segment bytes against its size; in the code region also the program head (.rodata) and
// kFirmwareCodeBytes for the firmware's own code (an estimate: the linker still checks).
Status CheckConstantsFit(const target::Board& board, const Program& p, uint32_t head_size,
                         const std::string& model) {
  std::map<std::string, int64_t> need;
  for (const ProgramSegment& s : p.segments) {
    // A segment in a RAM region (--hot-constants) has its image in the weights region; its
    // RAM was checked against the room the activation plan leaves (ChooseHotConstants).
    const target::MemoryRegion* m = board.Find(s.region);
    const bool ram = m != nullptr && m->purpose == "ram";
    need[ram ? board.weights_region : s.region] +=
        AlignUp(static_cast<int64_t>(s.bytes.size()), 16);
  }
  for (auto& [region, bytes] : need) {
    const target::MemoryRegion* m = board.Find(region);
    if (m == nullptr) continue;
    const bool code = region == board.code_region;
    const int64_t total = bytes + (code ? head_size + plan::kFirmwareCodeBytes : 0);
    if (total <= m->size) continue;
    return Error(model + " on " + board.name + ": does not fit: region '" + region +
                 "' needs " + WithThousands(total) + " bytes but has " +
                 WithThousands(m->size) + " (" + WithThousands(total - m->size) +
                 " bytes missing): " + WithThousands(bytes) + " bytes of constants (weights)" +
                 (code ? " + the program head and about " +
                             WithThousands(plan::kFirmwareCodeBytes) + " bytes of firmware code"
                       : std::string()) +
                 "; use a smaller model or put some weights in another region (--weights-in "
                 "OP=REGION)");
  }
  return OkStatus();
}

// --hot-constants: the RAM region that gets a copy of the hottest constants, and which.
struct HotConstants {
  std::string region;           // empty: none
  std::vector<bool> constants;  // per detail::Encoded constant: copied to `region`
  int64_t bytes = 0;            // the segment's bytes (each constant padded to 16)
};

// Heat of an op's constants: the uses per inference of each constant byte, estimated as the
// op's MACs per constant byte (a convolution's weight is used once per output pixel, a fully
// connected layer's once), or for ops without MACs (table lookups) the activation bytes
// per constant byte. Ops hotter than others go first; each takes the room left in the
// region after the activation plan if all its (not yet chosen) constants fit, else it is
// skipped (first fit by heat).
Expected<HotConstants> ChooseHotConstants(const ir::Graph& g, const target::Board& board,
                                          const EmitOptions& o,
                                          const std::vector<plan::Region>& regions,
                                          const plan::MemoryPlan& mp, const detail::Encoded& e,
                                          const std::map<std::string, std::string>& pinned) {
  HotConstants hot;
  hot.constants.assign(e.constants.size(), false);
  if (o.hot_constants == "off") return hot;
  const target::MemoryRegion* weights = board.Find(board.weights_region);
  const int weights_rank = weights != nullptr ? weights->speed_rank : 1 << 30;
  int chosen = -1;
  auto free_in = [&](size_t r) {
    return regions[r].capacity - AlignUp(mp.regions[r].used, 16);
  };
  for (size_t r = 0; r < regions.size(); ++r) {
    if (o.hot_constants == "auto") {
      if (regions[r].speed_rank >= weights_rank || free_in(r) <= 0) continue;
      if (chosen < 0 || regions[r].speed_rank < regions[static_cast<size_t>(chosen)].speed_rank)
        chosen = static_cast<int>(r);
    } else if (regions[r].name == o.hot_constants) {
      chosen = static_cast<int>(r);
    }
  }
  if (o.hot_constants != "auto" && chosen < 0) {
    return Error("--hot-constants " + o.hot_constants +
                 ": not off, auto or a RAM region of board " + board.name);
  }
  if (chosen < 0) return hot;  // auto, and no RAM region faster than the weights' has room
  const int64_t room = free_in(static_cast<size_t>(chosen));
  struct Candidate {
    double heat;
    size_t op;  // index into e.ops
    std::vector<int> constants;
  };
  std::vector<Candidate> candidates;
  for (size_t k = 0; k < e.ops.size(); ++k) {
    const detail::EncodedOp& eo = e.ops[k];
    if (pinned.count(g.ops[eo.ir_op].name)) continue;  // --weights-in keeps its region
    Candidate c{0.0, k, {}};
    int64_t const_bytes = 0, act_bytes = 0;
    for (const Operand& od : eo.operands) {
      if (od.kind == Operand::kConstant) {
        c.constants.push_back(od.index);
        const_bytes +=
            static_cast<int64_t>(e.constants[static_cast<size_t>(od.index)].bytes.size());
      } else if (od.kind == Operand::kActivation) {
        act_bytes += e.tensors[static_cast<size_t>(od.index)].bytes;
      }
    }
    if (const_bytes == 0) continue;
    c.heat = static_cast<double>(std::max<int64_t>(eo.spec.macs, act_bytes)) /
             static_cast<double>(const_bytes);
    candidates.push_back(std::move(c));
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.heat > b.heat; });
  for (const Candidate& c : candidates) {
    int64_t need = 0;
    for (int i : c.constants) {
      if (!hot.constants[static_cast<size_t>(i)])
        need += AlignUp(static_cast<int64_t>(e.constants[static_cast<size_t>(i)].bytes.size()), 16);
    }
    if (hot.bytes + need > room) continue;
    for (int i : c.constants) hot.constants[static_cast<size_t>(i)] = true;
    hot.bytes += need;
  }
  if (hot.bytes > 0) hot.region = regions[static_cast<size_t>(chosen)].name;
  return hot;
}


// ---- Pipes (docs/decisions.md 84) ------------------------------------------------------
// A chain of e.ops run as a pipe, and each member's output rows per kernel call.
struct PipeSel {
  std::vector<size_t> ops;
  std::vector<int32_t> rows;
};

// The tensor a member reads from its predecessor's window: its streamed input (an ADD ending
// the pipe: whichever input the predecessor writes).
int WindowInput(const detail::Encoded& e, const PipeSel& ps, size_t s) {
  const plan::OpSpec& op = e.ops[ps.ops[s]].spec;
  if (s == 0 || !e.ops[ps.ops[s]].pipe_tail) {
    return op.inputs[static_cast<size_t>(op.in_place_input)];
  }
  return e.ops[ps.ops[s - 1]].spec.outputs[0];
}

// The other input of an ADD ending the pipe, or -1.
int PipeSide(const detail::Encoded& e, const PipeSel& ps) {
  const detail::EncodedOp& last = e.ops[ps.ops.back()];
  if (!last.pipe_tail || ps.ops.size() < 2) return -1;
  const int w = WindowInput(e, ps, ps.ops.size() - 1);
  for (int t : last.spec.inputs) {
    if (t != w) return t;
  }
  return -1;
}

// The planner's view of `e` with each pipe one op (its windows and members' scratch its
// scratch), and the way back.
struct Fused {
  plan::GraphSpec spec;
  std::vector<int> tensor_of;  // e tensor -> spec tensor (-1: a window)
  std::vector<int> op_of;      // spec op -> e op (a pipe: its first member)
  std::vector<int> pipe_of;    // spec op -> pipe index, or -1
  struct Pipe {
    rt::Pipe pipe;
    std::vector<int64_t> scratch, scratch_at, window_at;  // per member (windows: s < n-1)
    int64_t bytes = 0;  // the members' scratch and the windows, each aligned
  };
  std::vector<Pipe> pipes;
};

Expected<Fused> Fuse(const detail::Encoded& e, const std::vector<PipeSel>& sel, int64_t align) {
  Fused f;
  std::vector<int> pipe_of_op(e.ops.size(), -1);
  std::vector<bool> window(e.tensors.size(), false);
  for (size_t i = 0; i < sel.size(); ++i) {
    const PipeSel& ps = sel[i];
    Fused::Pipe fp;
    fp.pipe.stages = static_cast<int32_t>(ps.ops.size());
    int64_t at = 0;
    for (size_t s = 0; s < ps.ops.size(); ++s) {
      const detail::EncodedOp& eo = e.ops[ps.ops[s]];
      if (!eo.row_calls || eo.spec.stream_options.empty()) {
        return Error::Internal("pipe: op without row streaming");
      }
      fp.pipe.g[s] = rt::StreamBlocks(eo.spec.stream_options[0], ps.rows[s]);
      detail::EncodedOp tmp = eo;
      fp.scratch.push_back(tmp.row_calls(tmp, ps.rows[s]));
      pipe_of_op[ps.ops[s]] = static_cast<int>(i);
      if (s + 1 < ps.ops.size()) window[static_cast<size_t>(eo.spec.outputs[0])] = true;
    }
    // An ADD ending the pipe (docs/decisions.md 99) reads one more tensor whole: a residual
    // pipe's when that is the pipe's own input.
    const int side = PipeSide(e, ps);
    const plan::OpSpec& head = e.ops[ps.ops.front()].spec;
    fp.pipe.residual = side >= 0 && side == head.inputs[static_cast<size_t>(head.in_place_input)];
    if (!rt::MinPipeWindows(&fp.pipe)) return Error::Internal("pipe: members do not chain");
    for (size_t s = 0; s < ps.ops.size(); ++s) {
      fp.scratch_at.push_back(at);
      at += AlignUp(fp.scratch[s], align);
    }
    for (size_t s = 0; s + 1 < ps.ops.size(); ++s) {
      fp.window_at.push_back(at);
      at += AlignUp(fp.pipe.window_rows[s] * rt::PipeRowBytes(fp.pipe.g[s]), align);
    }
    fp.bytes = at;
    f.pipes.push_back(std::move(fp));
  }
  f.tensor_of.assign(e.tensors.size(), -1);
  for (size_t t = 0; t < e.tensors.size(); ++t) {
    if (window[t]) continue;
    f.tensor_of[t] = static_cast<int>(f.spec.tensors.size());
    f.spec.tensors.push_back(e.tensors[t]);
  }
  auto remap = [&](std::vector<int>& ts) {
    for (int& t : ts) t = f.tensor_of[static_cast<size_t>(t)];
  };
  for (size_t k = 0; k < e.ops.size(); ++k) {
    const int pi = pipe_of_op[k];
    // A pipe stands where its last member does: an ADD ending it may read a tensor made
    // after its first member (a ResNet block's shortcut).
    if (pi >= 0 && sel[static_cast<size_t>(pi)].ops.back() != k) continue;
    const size_t head = pi >= 0 ? sel[static_cast<size_t>(pi)].ops.front() : k;
    plan::OpSpec op = e.ops[head].spec;
    if (pi >= 0) {
      const PipeSel& ps = sel[static_cast<size_t>(pi)];
      const Fused::Pipe& fp = f.pipes[static_cast<size_t>(pi)];
      const plan::OpSpec& last = e.ops[ps.ops.back()].spec;
      op.name = e.ops[ps.ops.front()].spec.name + ".pipe";
      op.outputs = last.outputs;
      op.scratch_bytes = fp.bytes;
      op.macs = 0;
      for (size_t m : ps.ops) op.macs += e.ops[m].spec.macs;
      op.in_place = plan::InPlace::kStream;
      op.alias_whole = false;
      op.stream_options.clear();
      op.stream_min_rows.clear();
      op.pipe = fp.pipe;
      const int side = PipeSide(e, ps);
      if (side >= 0 && std::find(op.inputs.begin(), op.inputs.end(), side) == op.inputs.end()) {
        op.inputs.push_back(side);
      }
    }
    remap(op.inputs);
    remap(op.outputs);
    for (int t : op.inputs) {
      if (t < 0) return Error::Internal("pipe: a window is read outside its pipe");
    }
    f.op_of.push_back(static_cast<int>(head));
    f.pipe_of.push_back(pi);
    f.spec.ops.push_back(std::move(op));
  }
  return f;
}

// The plan of the fused spec, per e op and e tensor again; role[k] = {stage, stages} of a
// pipe member ({-1, 0} otherwise); window_bytes[t] > 0 for a window.
plan::MemoryPlan Unfuse(const Fused& f, const detail::Encoded& e, const std::vector<PipeSel>& sel,
                        plan::MemoryPlan mpf, std::vector<std::pair<int, int>>* role,
                        std::vector<int64_t>* window_bytes) {
  plan::MemoryPlan mp;
  const size_t n = e.ops.size();
  role->assign(n, {-1, 0});
  window_bytes->assign(e.tensors.size(), 0);
  mp.tensors.assign(e.tensors.size(), plan::Placement{});
  mp.scratch.assign(n, plan::Placement{});
  mp.line_buffers.assign(n, plan::Placement{});
  mp.streams.assign(n, plan::StreamChoice{});
  mp.aliased.assign(n, false);
  for (size_t t = 0; t < e.tensors.size(); ++t) {
    if (f.tensor_of[t] >= 0) mp.tensors[t] = mpf.tensors[static_cast<size_t>(f.tensor_of[t])];
  }
  for (int j : mpf.order) {
    const size_t sj = static_cast<size_t>(j);
    const size_t k = static_cast<size_t>(f.op_of[sj]);
    const int pi = f.pipe_of[sj];
    if (pi < 0) {
      mp.order.push_back(static_cast<int>(k));
      mp.scratch[k] = mpf.scratch[sj];
      mp.line_buffers[k] = mpf.line_buffers[sj];
      mp.streams[k] = mpf.streams[sj];
      mp.aliased[k] = mpf.aliased[sj];
      continue;
    }
    const PipeSel& ps = sel[static_cast<size_t>(pi)];
    const Fused::Pipe& fp = f.pipes[static_cast<size_t>(pi)];
    const plan::Placement& sp = mpf.scratch[sj];
    const int stages = static_cast<int>(ps.ops.size());
    for (int s = 0; s < stages; ++s) {
      const size_t m = ps.ops[static_cast<size_t>(s)];
      mp.order.push_back(static_cast<int>(m));
      (*role)[m] = {s, stages};
      if (fp.scratch[static_cast<size_t>(s)] > 0) {
        mp.scratch[m] = {sp.region, sp.offset + fp.scratch_at[static_cast<size_t>(s)]};
      }
      plan::StreamChoice c;
      c.option = 0;
      c.geometry = fp.pipe.g[s];
      c.pipe = fp.pipe;
      if (s + 1 < stages) {
        const size_t t = static_cast<size_t>(e.ops[m].spec.outputs[0]);
        mp.tensors[t] = {sp.region, sp.offset + fp.window_at[static_cast<size_t>(s)]};
        (*window_bytes)[t] = fp.pipe.window_rows[s] * rt::PipeRowBytes(fp.pipe.g[s]);
      } else {
        c.slots = mpf.streams[sj].slots;
        c.line_bytes = mpf.streams[sj].line_bytes;
        mp.line_buffers[m] = mpf.line_buffers[sj];
      }
      mp.streams[m] = c;
    }
  }
  mp.regions = std::move(mpf.regions);
  mp.total_bytes = mpf.total_bytes;
  mp.lower_bound = mpf.lower_bound;
  mp.problem = std::move(mpf.problem);
  mp.plan = std::move(mpf.plan);
  return mp;
}

// Links a -> b two ops of `e` could make in a pipe: a's only output is read by b alone, as
// the input b streams (or as either input of an ADD that may end a pipe), and is neither a
// graph input or output nor pinned.
std::vector<std::pair<size_t, size_t>> PipeLinks(const detail::Encoded& e) {
  std::vector<int> readers(e.tensors.size(), 0);
  for (const detail::EncodedOp& eo : e.ops) {
    for (int t : eo.spec.inputs) ++readers[static_cast<size_t>(t)];
  }
  auto pipeable = [&](const detail::EncodedOp& eo) {
    return eo.row_calls && !eo.spec.stream_options.empty() &&
           eo.spec.in_place == plan::InPlace::kStream && eo.spec.outputs.size() == 1;
  };
  std::vector<std::pair<size_t, size_t>> links;
  for (size_t a = 0; a < e.ops.size(); ++a) {
    if (!pipeable(e.ops[a])) continue;
    const int t = e.ops[a].spec.outputs[0];
    const plan::TensorSpec& ts = e.tensors[static_cast<size_t>(t)];
    if (readers[static_cast<size_t>(t)] != 1 || ts.graph_input || ts.graph_output ||
        !ts.pin.empty()) {
      continue;
    }
    for (size_t b = 0; b < e.ops.size(); ++b) {
      const detail::EncodedOp& eb = e.ops[b];
      const plan::OpSpec& sb = eb.spec;
      const bool chain = pipeable(eb) && sb.inputs[static_cast<size_t>(sb.in_place_input)] == t;
      // An ADD ends a pipe (docs/decisions.md 99): either input may be the window.
      const bool tail = eb.pipe_tail && !eb.spec.stream_options.empty() && eb.row_calls &&
                        std::count(sb.inputs.begin(), sb.inputs.end(), t) == 1;
      if (b != a && (chain || tail)) links.emplace_back(a, b);
    }
  }
  return links;
}

// `sel` with the link a -> b added (chains joined), or false if a member would be in two
// pipes or a pipe would exceed rt::kMaxPipeStages.
bool AddLink(std::vector<PipeSel>& sel, const detail::Encoded& e, size_t a, size_t b,
             int32_t div) {
  int pa = -1, pb = -1;
  for (size_t i = 0; i < sel.size(); ++i) {
    if (sel[i].ops.back() == a) pa = static_cast<int>(i);
    if (sel[i].ops.front() == b) pb = static_cast<int>(i);
    for (size_t m : sel[i].ops) {
      if ((m == a && sel[i].ops.back() != a) || (m == b && sel[i].ops.front() != b)) return false;
    }
  }
  auto rows = [&](size_t k) {
    const int32_t least = e.ops[k].spec.stream_min_rows.empty() ? 1 : e.ops[k].spec.stream_min_rows[0];
    return std::max<int32_t>(1, least / div);
  };
  PipeSel joined;
  if (pa >= 0) joined = sel[static_cast<size_t>(pa)];
  else joined = {{a}, {rows(a)}};
  if (pb >= 0) {
    const PipeSel& tail = sel[static_cast<size_t>(pb)];
    joined.ops.insert(joined.ops.end(), tail.ops.begin(), tail.ops.end());
    joined.rows.insert(joined.rows.end(), tail.rows.begin(), tail.rows.end());
  } else {
    joined.ops.push_back(b);
    joined.rows.push_back(rows(b));
  }
  for (size_t i = 0; i < joined.ops.size(); ++i) joined.rows[i] = std::min(joined.rows[i], rows(joined.ops[i]));
  if (joined.ops.size() > static_cast<size_t>(rt::kMaxPipeStages)) return false;
  std::vector<PipeSel> next;
  for (size_t i = 0; i < sel.size(); ++i) {
    if (static_cast<int>(i) != pa && static_cast<int>(i) != pb) next.push_back(sel[i]);
  }
  next.push_back(std::move(joined));
  sel = std::move(next);
  return true;
}

}  // namespace

Expected<Emitted> EmitProgram(const ir::Graph& g, const EmitOptions& options) {
  Emitted out;
  out.model_name = g.name;
  TF_ASSIGN_OR_RETURN(out.board, target::LoadBoard(options.target, "", options.memory));
  const target::Board& board = out.board;
  std::string isa = board.isa_class;
  if (options.kernels != "auto") {
    static const char* const kClasses[] = {"ref", "scalar", "dsp", "mve"};
    auto rank = [](const std::string& c) {
      for (int i = 0; i < 4; ++i) {
        if (c == kClasses[i]) return i;
      }
      return -1;
    };
    if (rank(options.kernels) < 0) {
      return Error("--kernels: '" + options.kernels + "' is not auto, ref, scalar, dsp or mve");
    }
    if (rank(options.kernels) > rank(board.isa_class)) {
      return Error("--kernels " + options.kernels + ": board " + board.name + " (" + board.cpu +
                   ") runs " + board.isa_class + " kernels at most");
    }
    isa = options.kernels;
  }
  if (options.optimize != "speed" && options.optimize != "size") {
    return Error("--optimize: '" + options.optimize + "' is not speed or size");
  }
  const bool size = options.optimize == "size";
  const std::vector<plan::Region> regions = plan::RamRegions(board, options.reserve);
  // Encodes with `kernels` (per IR op: a variant instead of PickKernel's) into `e`.
  // The ops encoded in their kernel's lean form (docs/decisions.md 98), chosen below.
  std::set<size_t> lean;
  auto encode = [&](const std::map<size_t, const rt::KernelInfo*>& kernels,
                    detail::Encoded& e) -> Status {
    TF_ASSIGN_OR_RETURN(e, detail::EncodeOps(g, isa, options.stream, options.stream_pixels,
                                             kernels, size, lean));
    return ApplyPlacements(g, board, options, e);
  };
  // Pipes chosen so far (docs/decisions.md 84); per e op its {stage, stages} in a pipe and
  // per e tensor its window's bytes, as the last plan_of left them.
  std::vector<PipeSel> pipes;
  std::vector<std::pair<int, int>> role;
  std::vector<int64_t> window_bytes;
  auto plan_of = [&](const detail::Encoded& e) -> Expected<plan::MemoryPlan> {
    if (pipes.empty()) {
      role.assign(e.ops.size(), {-1, 0});
      window_bytes.assign(e.tensors.size(), 0);
      plan::GraphSpec spec;
      spec.tensors = e.tensors;
      for (const detail::EncodedOp& op : e.ops) spec.ops.push_back(op.spec);
      return plan::PlanGraph(spec, regions, options.plan);
    }
    TF_ASSIGN_OR_RETURN(Fused f, Fuse(e, pipes, options.plan.align));
    TF_ASSIGN_OR_RETURN(plan::MemoryPlan mpf, plan::PlanGraph(f.spec, regions, options.plan));
    return Unfuse(f, e, pipes, std::move(mpf), &role, &window_bytes);
  };
  detail::Encoded e;
  std::map<size_t, const rt::KernelInfo*> kernels;
  TF_RETURN_IF_ERROR(encode(kernels, e));
  if (size) {  // the light ops take __ref (detail::SizeKernels)
    kernels = detail::SizeKernels(g, e);
    if (!kernels.empty()) TF_RETURN_IF_ERROR(encode(kernels, e));
  }
  auto planned = plan_of(e);
  TF_RETURN_IF_ERROR_PREFIX(planned, g.name + " on " + board.name);
  // Pipes where they lower the plan's total: greedily, the link that lowers it most, until
  // none does (docs/decisions.md 84).
  if (options.pipes && options.stream != StreamMode::kOff) {
    const auto links = PipeLinks(e);
    // The default plan (kBudget) spends at most kPipeBudget of the program's MACs' worth on
    // the pipes' kernel calls: a member calling its kernel on blocks of P output pixels
    // costs, per call, a tenth of its variant's stream figure (StreamBudgetPixels: the
    // pixels a call that keeps it within 10 %), i.e. (figure / 10) / P of its work more.
    // MACs stand for work, which undercounts depthwise convs (about twice conv's
    // instructions per MAC): 3 % of the MACs came to 4.7 % more instructions on vww (an547;
    // docs/decisions.md 84). 6 % (decision 100) takes no more pipes on the M55's MLPerf
    // Tiny plans and breadth models, and on the M4 lets ic's residual block (1.033x,
    // 13.5 KB less arena + stack) and two more pipes in; --min-ram takes the pipes that
    // lower the plan most, whatever they cost.
    constexpr double kPipeBudget = 0.06;
    // An ADD ending a pipe: about 250 instructions a call (the glue, the kernel's set-up)
    // against about 0.35 instructions a MAC for the convs around it on the M55.
    constexpr double kAddCallMacs = 700;
    double total_macs = 0;
    for (const detail::EncodedOp& eo : e.ops) total_macs += static_cast<double>(eo.spec.macs);
    auto extra_of = [&](const std::vector<PipeSel>& sel) {
      double extra = 0;
      for (const PipeSel& ps : sel) {
        for (size_t s = 0; s < ps.ops.size(); ++s) {
          const detail::EncodedOp& eo = e.ops[ps.ops[s]];
          if (eo.pipe_tail) {  // an ADD: its calls' set-up, in MACs' worth
            const rt::StreamGeometry g = rt::StreamBlocks(eo.spec.stream_options[0], ps.rows[s]);
            extra += kAddCallMacs * g.units;
            continue;
          }
          const double figure = detail::StreamBudgetPixels(*eo.kernel);
          // Output pixels per row: out_w, word 5 of the conv and dwconv parameters.
          const double block = static_cast<double>(ps.rows[s]) * std::max(eo.params[5], 1);
          extra += figure <= 0 ? total_macs
                               : figure / 10.0 / block * static_cast<double>(eo.spec.macs);
        }
      }
      return extra;
    };
    // The stack pipes add: a pipe's state and schedule (kPipeStack), and its members' glue
    // frames nested (each calls the next) under the kernel calls (ic on the an547: a 3-op
    // pipe +1,176 B; on the an505 a 2-op pipe +1,360, on the an386 a 3-op pipe +1,672);
    // the deepest pipe's, once. Pipes pay for it in RAM (docs/decisions.md 99, 100): each
    // round's pick must lower the plan by more than the members' frames it deepens, and
    // the pipes chosen by more than their whole stack, or none is kept.
    constexpr int64_t kPipeStack = 800, kPipeMemberStack = 400;
    auto pipe_stack = [&](const std::vector<PipeSel>& sel, bool whole) {
      size_t deepest = 0;
      for (const PipeSel& ps : sel) deepest = std::max(deepest, ps.ops.size());
      if (deepest == 0) return int64_t{0};
      return (whole ? kPipeStack : 0) + kPipeMemberStack * static_cast<int64_t>(deepest);
    };
    const int64_t without_pipes = planned->total_bytes;
    const bool budget = options.stream == StreamMode::kBudget;
    // A link alone, or with the next link of its chain: a residual block's conv -> conv ->
    // add lowers the plan only whole (docs/decisions.md 99), each link alone does not.
    std::vector<std::vector<std::pair<size_t, size_t>>> steps;
    for (const auto& ab : links) {
      steps.push_back({ab});
      for (const auto& bc : links) {
        if (bc.first == ab.second) steps.push_back({ab, bc});
      }
    }
    for (size_t round = 0; round < links.size(); ++round) {
      const std::vector<PipeSel> cur = pipes;
      std::vector<PipeSel> best;
      int64_t best_total = planned->total_bytes + pipe_stack(cur, false);
      double best_extra = 0;
      for (const auto& step : steps) {
        for (int32_t div : {1, 2, 4}) {
          std::vector<PipeSel> trial = cur;
          bool added = true;
          for (const auto& [a, b] : step) added = added && AddLink(trial, e, a, b, div);
          if (!added) continue;
          const double extra = extra_of(trial);
          if (budget && extra > kPipeBudget * total_macs) continue;
          pipes = trial;
          auto p2 = plan_of(e);
          if (!p2.ok()) continue;
          const int64_t total = p2->total_bytes + pipe_stack(trial, false);
          if (total < best_total ||
              (!best.empty() && total == best_total && extra < best_extra)) {
            best_total = total, best = trial, best_extra = extra;
          }
        }
      }
      pipes = best.empty() ? cur : best;
      if (best.empty()) break;
      planned = plan_of(e);
      TF_RETURN_IF_ERROR_PREFIX(planned, g.name + " on " + board.name);
    }
    // Every residual block at once (conv -> conv -> add chains not in a pipe yet): a stage's
    // identical blocks tie for the peak, so that no one of them alone lowers the plan.
    {
      std::vector<PipeSel> all = pipes;
      size_t added = 0;
      for (const auto& step : steps) {
        if (step.size() != 2 || !e.ops[step[1].second].pipe_tail) continue;
        std::vector<PipeSel> trial = all;
        if (AddLink(trial, e, step[0].first, step[0].second, 1) &&
            AddLink(trial, e, step[1].first, step[1].second, 1)) {
          all = std::move(trial);
          ++added;
        }
      }
      if (added > 1 && (!budget || extra_of(all) <= kPipeBudget * total_macs)) {
        const std::vector<PipeSel> cur = pipes;
        const int64_t before = planned->total_bytes + pipe_stack(cur, false);
        pipes = all;
        auto p2 = plan_of(e);
        if (!p2.ok() || p2->total_bytes + pipe_stack(all, false) >= before) pipes = cur;
      }
    }
    // Then each pipe goes again, one at a time, wherever the total with the whole stack
    // does not rise without it (a block of the last step that is not at the peak).
    if (pipes.size() > 1) {
      auto kept = plan_of(e);
      TF_RETURN_IF_ERROR_PREFIX(kept, g.name + " on " + board.name);
      int64_t with = kept->total_bytes + pipe_stack(pipes, true);
      for (size_t i = pipes.size(); i-- > 0 && pipes.size() > 1;) {
        const std::vector<PipeSel> keep = pipes;
        pipes.erase(pipes.begin() + static_cast<std::ptrdiff_t>(i));
        auto p2 = plan_of(e);
        if (!p2.ok() || p2->total_bytes + pipe_stack(pipes, true) > with) {
          pipes = keep;
        } else {
          with = p2->total_bytes + pipe_stack(pipes, true);
        }
      }
    }
    // The trials left role and window_bytes as the last one planned them.
    planned = plan_of(e);
    TF_RETURN_IF_ERROR_PREFIX(planned, g.name + " on " + board.name);
    if (!pipes.empty() && planned->total_bytes + pipe_stack(pipes, true) >= without_pipes) {
      pipes.clear();
      planned = plan_of(e);
      TF_RETURN_IF_ERROR_PREFIX(planned, g.name + " on " + board.name);
    }
  }
  // Lean forms by RAM (docs/decisions.md 98): every op that has one (s8_conv__mve's tables in
  // the bias operand, flash for scratch; s8_dwconv__mve's planes of 4 channels) takes it if
  // that lowers the plan's total bytes; then each, in program order, goes back where that
  // raises the total by at most a kFlashPerRamByte-th of the flash its lean form adds (0 for
  // the depthwise), so they stay only where their scratch is live at the peak (as the
  // kernels by RAM below) and pays for its flash: microcontrollers have several times more
  // flash than RAM. Graphs with more than kMaxLeanOps such ops are not tried (a plan per op).
  constexpr size_t kMaxLeanOps = 64;
  constexpr int64_t kFlashPerRamByte = 4;
  std::vector<size_t> offered;
  for (const detail::EncodedOp& op : e.ops) {
    if (op.lean_offered) offered.push_back(op.ir_op);
  }
  if (options.lean && !offered.empty() && offered.size() <= kMaxLeanOps) {
    // Replans with `tried`; keeps it when the total is below `bound` (at most, if `equal`).
    auto take = [&](const std::set<size_t>& tried, int64_t bound, bool equal) {
      const std::set<size_t> before = lean;
      lean = tried;
      detail::Encoded e2;
      if (encode(kernels, e2).ok()) {
        auto p2 = plan_of(e2);
        if (p2 && (p2->total_bytes < bound || (equal && p2->total_bytes == bound))) {
          e = std::move(e2);
          planned = std::move(p2);
          return true;
        }
      }
      lean = before;
      return false;
    };
    if (take(std::set<size_t>(offered.begin(), offered.end()), planned->total_bytes, false)) {
      for (size_t ir_op : offered) {
        int64_t flash = 0;  // the constant bytes its lean form adds
        for (const detail::EncodedOp& op : e.ops) {
          if (op.ir_op == ir_op) flash = op.lean_bytes;
        }
        std::set<size_t> tried = lean;
        tried.erase(ir_op);
        take(tried, planned->total_bytes + flash / kFlashPerRamByte, true);
      }
    }
    planned = plan_of(e);  // (role and window_bytes of the plan kept)
    TF_RETURN_IF_ERROR_PREFIX(planned, g.name + " on " + board.name);
  }
  // The kernel per op by RAM (docs/decisions.md 58): every op with scratch that has another
  // variant of the same instruction set with less scratch (s8_dwconv__mve_direct: none)
  // takes it if that lowers the plan's total bytes; then each of them, in program order,
  // goes back to the fastest (PickKernel's) where that leaves the total unchanged. So the
  // lean variants stay only where their scratch would be live at the peak. (One op at a time
  // would not do: ops of the same size tie at the peak.)
  if (options.kernels_by_ram) {
    std::map<size_t, const rt::KernelInfo*> lean_ops;  // beside --optimize size's choices
    for (const detail::EncodedOp& op : e.ops) {
      if (op.spec.scratch_bytes == 0 || kernels.count(op.ir_op)) continue;
      const std::vector<const rt::KernelInfo*> alts = detail::SameIsaVariants(*op.kernel);
      if (!alts.empty()) lean_ops[op.ir_op] = alts.front();
    }
    auto lean = kernels;
    lean.insert(lean_ops.begin(), lean_ops.end());
    // Replans with `tried`; keeps it when the total is below `bound` (at most, if `equal`).
    auto take = [&](const std::map<size_t, const rt::KernelInfo*>& tried, int64_t bound,
                    bool equal) {
      detail::Encoded e2;
      if (!encode(tried, e2).ok()) return false;
      auto p2 = plan_of(e2);
      if (!p2 || p2->total_bytes > bound || (!equal && p2->total_bytes == bound)) return false;
      kernels = tried;
      e = std::move(e2);
      planned = std::move(p2);
      return true;
    };
    if (!lean_ops.empty() && take(lean, planned->total_bytes, false)) {
      for (const auto& [ir_op, alt] : lean_ops) {
        auto tried = kernels;
        tried.erase(ir_op);
        take(tried, planned->total_bytes, true);
      }
    }
  }
  if (!pipes.empty()) {
    // A member calls its kernel on its pipe's blocks only: their scratch and paths.
    for (const PipeSel& ps : pipes) {
      for (size_t s = 0; s < ps.ops.size(); ++s) {
        detail::EncodedOp& eo = e.ops[ps.ops[s]];
        if (!eo.pipe_tail) eo.paths.clear();  // (an ADD links no paths on demand)
        eo.spec.scratch_bytes = eo.row_calls(eo, ps.rows[s]);
      }
    }
    planned = plan_of(e);  // (role and window_bytes of these pipes)
    TF_RETURN_IF_ERROR_PREFIX(planned, g.name + " on " + board.name);
  }
  TF_ASSIGN_OR_RETURN(auto weight_regions, WeightRegions(g, board, options));
  out.plan = std::move(*planned);
  const plan::MemoryPlan& mp = out.plan;
  TF_ASSIGN_OR_RETURN(const HotConstants hot,
                      ChooseHotConstants(g, board, options, regions, mp, e, weight_regions));

  // Regions the program uses, in the board's order.
  Program& p = out.program;
  std::vector<int> region_index(regions.size(), -1);
  for (size_t r = 0; r < regions.size(); ++r) {
    if (mp.regions[r].used == 0) continue;
    region_index[r] = static_cast<int>(p.regions.size());
    p.regions.push_back(
        {regions[r].name, static_cast<uint32_t>(AlignUp(mp.regions[r].used, 16)), fmt::kAlign});
  }
  auto arena_tensor = [&](const plan::Placement& at, uint8_t dtype, int64_t bytes) {
    return p.AddArenaTensor(static_cast<uint32_t>(region_index[static_cast<size_t>(at.region)]),
                            dtype, static_cast<uint32_t>(at.offset), static_cast<uint32_t>(bytes));
  };
  std::vector<int32_t> act_tensor(e.tensors.size());
  for (size_t t = 0; t < e.tensors.size(); ++t) {
    act_tensor[t] = arena_tensor(mp.tensors[t], e.tensor_dtype[t],
                                 window_bytes[t] > 0 ? window_bytes[t] : e.tensors[t].bytes);
  }
  // The quantization of every int8 activation (the loader checks each op's zero points and
  // scale-derived parameters against it); the IR tensors sharing a plan tensor (reshape
  // views) share it.
  p.rounding = g.rounding == ir::Rounding::kDouble ? TF_ROUNDING_DOUBLE : TF_ROUNDING_SINGLE;
  std::vector<bool> quant_set(e.tensors.size(), false);
  for (size_t id = 0; id < g.tensors.size(); ++id) {
    const int pt = e.plan_tensor[id];
    const ir::Tensor& t = g.tensors[id];
    if (pt < 0 || e.tensor_dtype[static_cast<size_t>(pt)] != fmt::kInt8 || !t.quant ||
        t.quant->scale.size() != 1) {
      continue;
    }
    ProgramTensor& rec = p.tensors[static_cast<size_t>(act_tensor[static_cast<size_t>(pt)])];
    const float scale = static_cast<float>(t.quant->scale[0]);
    const auto zp = static_cast<int32_t>(t.quant->zero_point[0]);
    if (quant_set[static_cast<size_t>(pt)] && (rec.scale != scale || rec.zero_point != zp)) {
      return Error::Internal(g.name + ": tensor '" + t.name +
                             "' shares its buffer with a tensor of another quantization");
    }
    quant_set[static_cast<size_t>(pt)] = true;
    rec.scale = scale;
    rec.zero_point = zp;
  }
  // Constant segments: the board's weights region first, then each --weights-in region.
  auto segment_of = [&](const std::string& region) {
    for (size_t s = 0; s < p.segments.size(); ++s) {
      if (p.segments[s].region == region) return static_cast<uint32_t>(s);
    }
    p.segments.push_back({region, {}});
    out.segment_regions.push_back(region);
    out.segment_in_ram.push_back(region == hot.region);
    return static_cast<uint32_t>(p.segments.size() - 1);
  };
  // With hot constants, segments come in order of first use (all of them may be hot).
  if (hot.region.empty()) segment_of(board.weights_region);
  std::vector<int32_t> const_tensor(e.constants.size(), -1);

  // Ops in the planned order.
  for (int k : mp.order) {
    const detail::EncodedOp& eo = e.ops[static_cast<size_t>(k)];
    const ir::Op& irop = g.ops[eo.ir_op];
    const plan::StreamChoice& stream = mp.streams[static_cast<size_t>(k)];
    const auto wr = weight_regions.find(irop.name);
    const std::string& op_region = wr != weight_regions.end() ? wr->second : board.weights_region;
    ProgramOp rec;
    EmittedOp info;
    rec.kernel_id = eo.kernel->id;
    if (ZpFolded(irop)) rec.flags |= fmt::kOpFlagZpFolded;
    if (eo.lean) {
      rec.flags |= fmt::kOpFlagLean;
      info.lean = true;
      info.lean_bytes = eo.lean_bytes;
    }
    rec.params = stream.option == 1 ? eo.pixel_params : eo.params;
    for (size_t slot = 0; slot < eo.operands.size(); ++slot) {
      const Operand& o = eo.operands[slot];
      switch (o.kind) {
        case Operand::kNone: {
          // The scratch slot (conv, FC, bmm, softmax): a buffer when the kernel asks for one.
          const plan::Placement& sp = mp.scratch[static_cast<size_t>(k)];
          rec.operands.push_back(sp.region >= 0 && static_cast<int>(slot) ==
                                                       rt::abi::ScratchSlot(eo.kernel->op)
                                     ? arena_tensor(sp, fmt::kInt8, eo.spec.scratch_bytes)
                                     : fmt::kNoTensor);
          break;
        }
        case Operand::kActivation:
          if (o.index < 0 || static_cast<size_t>(o.index) >= act_tensor.size()) {
            return Error(irop.name + ": internal error: operand " + std::to_string(slot) +
                         " is not an activation");
          }
          rec.operands.push_back(act_tensor[static_cast<size_t>(o.index)]);
          info.activation_bytes += e.tensors[static_cast<size_t>(o.index)].bytes;
          break;
        case Operand::kConstant: {
          int32_t& t = const_tensor[static_cast<size_t>(o.index)];
          const bool in_ram = hot.constants[static_cast<size_t>(o.index)];
          if (t < 0) {
            const detail::Constant& c = e.constants[static_cast<size_t>(o.index)];
            t = p.AddConstant(segment_of(in_ram ? hot.region : op_region), c.dtype, c.bytes);
          }
          rec.operands.push_back(t);
          info.constants_region =
              p.segments[p.tensors[static_cast<size_t>(t)].location & 0x7f].region;
          info.constant_bytes +=
              static_cast<int64_t>(e.constants[static_cast<size_t>(o.index)].bytes.size());
          break;
        }
      }
    }
    rec.flags |= DeclaredOpFlags(eo.kernel->op, rec, p);
    const auto [stage, stages] = role[static_cast<size_t>(k)];
    if (stream.option >= 0) {
      rec.flags |= fmt::kOpFlagStream;
      rec.stream_rows = static_cast<uint16_t>(stream.geometry.rows_per_unit);
      // A pipe member but the last writes a window (tinyforge/pipe.h): no line buffer.
      rec.operands.push_back(stage >= 0 && stage + 1 < stages
                                 ? fmt::kNoTensor
                                 : arena_tensor(mp.line_buffers[static_cast<size_t>(k)],
                                                fmt::kInt8, stream.line_bytes));
      if (stage >= 0 && stage + 1 < stages) rec.flags |= fmt::kOpFlagPipeOut;
      if (stage > 0) rec.flags |= fmt::kOpFlagPipeIn;
    }
    if (mp.aliased[static_cast<size_t>(k)] || stream.option >= 0) {
      // Declare the planner's in-place partners: the loader accepts their overlap only
      // when declared, and only where tinyforge/in_place.h allows it.
      int in = eo.spec.inputs[static_cast<size_t>(eo.spec.in_place_input)];
      if (stage > 0) {  // a pipe member reads its predecessor's window
        for (const PipeSel& ps : pipes) {
          if (static_cast<int>(ps.ops.size()) == stages &&
              ps.ops[static_cast<size_t>(stage)] == static_cast<size_t>(k)) {
            in = WindowInput(e, ps, static_cast<size_t>(stage));
          }
        }
      }
      const int outp = eo.spec.outputs[0];
      for (size_t slot = 0; slot < eo.operands.size(); ++slot) {
        const Operand& o = eo.operands[slot];
        if (o.kind != Operand::kActivation) continue;
        if (o.index == in && rec.in_place_input == fmt::kNoSlot) {
          rec.in_place_input = static_cast<uint8_t>(slot);
        } else if (o.index == outp) {
          rec.in_place_output = static_cast<uint8_t>(slot);
        }
      }
      if (rec.in_place_input == fmt::kNoSlot || rec.in_place_output == fmt::kNoSlot ||
          !rt::InPlaceAllowed(eo.kernel->op, stream.option >= 0, rec.in_place_input,
                              rec.in_place_output)) {
        return Error(irop.name + ": internal error: the plan runs it in place where " +
                     eo.kernel->symbol + " does not allow it (tinyforge/in_place.h)");
      }
    }
    p.ops.push_back(std::move(rec));
    info.name = irop.name;
    info.type = std::string(ir::OpTypeName(irop.type));
    info.kernel = eo.kernel;
    info.macs = eo.spec.macs;
    info.scratch_bytes = eo.spec.scratch_bytes;
    info.streamed = stream.option >= 0;
    info.pixels = stream.option == 1;
    info.line_bytes = stream.option >= 0 ? stream.line_bytes : 0;
    info.stream_rows = stream.option >= 0 ? stream.geometry.rows_per_unit : 0;
    info.aliased = mp.aliased[static_cast<size_t>(k)];
    info.pipe_stage = stage;
    info.pipe_stages = stages;
    if (stage >= 0 && stage + 1 < stages) {
      info.window_bytes = window_bytes[static_cast<size_t>(eo.spec.outputs[0])];
    }
    out.ops.push_back(info);
    if (std::find(out.kernels.begin(), out.kernels.end(), eo.kernel) == out.kernels.end()) {
      out.kernels.push_back(eo.kernel);
    }
    for (const char* path : eo.paths) {
      const EmittedPath ep{eo.kernel, path};
      if (std::find(out.paths.begin(), out.paths.end(), ep) == out.paths.end()) {
        out.paths.push_back(ep);
      }
    }
  }
  // The runtime finds an op's kernel by a linear search of the table (4 instructions an
  // entry on the M55): the most used kernels first (ties in first use order).
  std::map<const rt::KernelInfo*, size_t> uses;
  for (const EmittedOp& op : out.ops) ++uses[op.kernel];
  std::stable_sort(
      out.kernels.begin(), out.kernels.end(),
      [&](const rt::KernelInfo* a, const rt::KernelInfo* b) { return uses[a] > uses[b]; });

  // Inputs and outputs, with the IR tensor's own shape (a reshape view keeps its shape).
  auto io = [&](ir::TensorId id, bool output) {
    const ir::Tensor& t = g.tensor(id);
    ProgramIo rec;
    rec.tensor = act_tensor[static_cast<size_t>(e.plan_tensor[static_cast<size_t>(id)])];
    rec.output = output;
    for (int64_t d : t.shape) rec.dims.push_back(static_cast<int32_t>(d));
    if (rec.dims.empty()) rec.dims = {1};
    if (t.quant && t.dtype != ir::DType::kFloat32) {
      rec.scale = static_cast<float>(t.quant->scale[0]);
      rec.zero_point = static_cast<int32_t>(t.quant->zero_point[0]);
    } else if (t.dtype == ir::DType::kInt32) {
      rec.scale = 1.0f;  // indices (argmax): real = q
    }
    p.io.push_back(rec);
  };
  for (ir::TensorId t : g.inputs) io(t, false);
  for (ir::TensorId t : g.outputs) io(t, true);
  for (const auto& [in, outp] : g.state) {
    p.state.emplace_back(static_cast<uint32_t>(in), static_cast<uint32_t>(outp));
  }

  // The planner's steps are the program's ops, but for a pipe's: one step (its first op's).
  // The report speaks of ops: a step's first and last op index.
  std::vector<int> step_first, step_last;
  for (size_t i = 0; i < mp.order.size(); ++i) {
    if (role[static_cast<size_t>(mp.order[i])].first <= 0) step_first.push_back(static_cast<int>(i));
    step_last.resize(step_first.size(), 0);
    step_last.back() = static_cast<int>(i);
  }
  auto op_at = [](const std::vector<int>& of, int step) {
    return step >= 0 && static_cast<size_t>(step) < of.size() ? of[static_cast<size_t>(step)]
                                                               : step;
  };
  for (plan::RegionUsage& u : out.plan.regions) u.peak_step = op_at(step_first, u.peak_step);
  // Buffers for the report, with lifetimes in ops.
  const plan::Problem& prob = mp.problem;
  for (size_t b = 0; b < prob.buffers.size(); ++b) {
    const plan::Placement& at = mp.plan.placements[b];
    out.buffers.push_back({prob.buffers[b].name, regions[static_cast<size_t>(at.region)].name,
                           at.offset, prob.buffers[b].size,
                           op_at(step_first, prob.buffers[b].first),
                           op_at(step_last, prob.buffers[b].last)});
  }
  TF_ASSIGN_OR_RETURN(out.image, WriteProgram(p));
  TF_ASSIGN_OR_RETURN(out.layout, ReadImageLayout(out.image));
  TF_RETURN_IF_ERROR(CheckConstantsFit(board, p, out.layout.head_size, g.name));
  for (size_t s = 0; s < out.segment_in_ram.size(); ++s) {
    if (out.segment_in_ram[s]) out.ram_constant_bytes += out.layout.segments[s].second;
  }
  return out;
}

}  // namespace tinyforge::emit
