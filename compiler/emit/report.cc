#include "emit/report.h"

#include <sstream>

namespace tinyforge::emit {
namespace {

using nlohmann::json;

std::string Grouped(int64_t v) {
  std::string s = std::to_string(v), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

// The region holding the largest peak: the op that sets the model's RAM need.
const plan::RegionUsage* PeakRegion(const Emitted& e) {
  const plan::RegionUsage* best = nullptr;
  for (const plan::RegionUsage& u : e.plan.regions) {
    if (u.used > 0 && (best == nullptr || u.used > best->used)) best = &u;
  }
  return best;
}

std::string StepName(const Emitted& e, int step) {
  return step >= 0 && static_cast<size_t>(step) < e.ops.size()
             ? e.ops[static_cast<size_t>(step)].name
             : "";
}

// Bytes of the state inputs: kept across runs, so never shared with another buffer.
int64_t StateBytes(const Emitted& e) {
  int64_t n = 0;
  for (const auto& pair : e.program.state) {
    const ProgramIo* in = nullptr;
    uint32_t k = 0;
    for (const ProgramIo& io : e.program.io) {
      if (!io.output && k++ == pair.first) in = &io;
    }
    if (in != nullptr) n += e.program.tensors[static_cast<size_t>(in->tensor)].size;
  }
  return n;
}

// Bytes of constants copied into RAM region `name` at init (--hot-constants).
int64_t RamConstants(const Emitted& e, const std::string& name) {
  int64_t n = 0;
  for (size_t s = 0; s < e.layout.segments.size(); ++s) {
    if (s < e.segment_in_ram.size() && e.segment_in_ram[s] && e.program.segments[s].region == name)
      n += e.layout.segments[s].second;
  }
  return n;
}

int64_t FlashConstants(const Emitted& e) {
  int64_t n = 0;
  for (const auto& s : e.layout.segments) n += s.second;
  return n;
}

}  // namespace

json Summary(const Emitted& e) {
  json j;
  j["model"] = e.model_name;
  j["target"] = {{"board", e.board.name}, {"cpu", e.board.cpu}, {"isa", e.board.isa_class}};
  j["regions"] = json::array();
  for (const plan::RegionUsage& u : e.plan.regions) {
    const target::MemoryRegion* m = e.board.Find(u.name);
    json r = {{"name", u.name},
              {"used", u.used},
              {"capacity", u.capacity},
              {"speed_rank", m ? m->speed_rank : 0}};
    if (const int64_t c = RamConstants(e, u.name)) r["constants"] = c;  // beside `used`
    if (u.used > 0) {
      r["peak_op"] = StepName(e, u.peak_step);
      r["peak_step"] = u.peak_step;
      r["live_at_peak"] = u.live_at_peak;
    }
    j["regions"].push_back(r);
  }
  // The plan's bytes, and the constants copied into RAM at init (--hot-constants).
  j["ram_bytes"] = e.plan.total_bytes + e.ram_constant_bytes;
  j["ram_constant_bytes"] = e.ram_constant_bytes;
  if (const plan::RegionUsage* p = PeakRegion(e)) {
    j["peak"] = {{"bytes", p->used},
                 {"region", p->name},
                 {"op", StepName(e, p->peak_step)},
                 {"step", p->peak_step},
                 {"live_bytes", p->live_at_peak}};
  }
  j["live_lower_bound"] = e.plan.lower_bound;
  // State pairs (input index, output index) and the bytes they keep across runs (part of
  // ram_bytes).
  j["state"] = json::array();
  for (const auto& [in, out] : e.program.state) j["state"].push_back({{"input", in}, {"output", out}});
  j["state_bytes"] = StateBytes(e);
  json flash = {{"program", e.layout.head_size},
                {"constants", FlashConstants(e)},
                {"total", e.layout.head_size + FlashConstants(e)},
                {"segments", json::array()}};
  for (size_t s = 0; s < e.layout.segments.size(); ++s) {
    json seg = {{"region", e.program.segments[s].region}, {"bytes", e.layout.segments[s].second}};
    // A segment read in RAM: its image is in the weights region, copied at init.
    if (s < e.segment_in_ram.size() && e.segment_in_ram[s])
      seg["image_in"] = e.board.weights_region;
    flash["segments"].push_back(seg);
  }
  j["flash"] = flash;
  j["kernels"] = json::array();
  for (const rt::KernelInfo* k : e.kernels) j["kernels"].push_back(k->symbol);
  j["kernel_paths"] = json::array();
  for (const EmittedPath& path : e.paths) j["kernel_paths"].push_back(path.symbol);
  int streamed = 0, aliased = 0;
  for (const EmittedOp& op : e.ops) streamed += op.streamed, aliased += op.aliased;
  j["ops"] = e.ops.size();
  j["in_place_ops"] = {{"streamed", streamed}, {"aliased", aliased}};
  return j;
}

json Report(const Emitted& e) {
  json j = Summary(e);
  j["schema"] = "tinyforge.report/1";
  j["ops"] = json::array();
  for (size_t i = 0; i < e.ops.size(); ++i) {
    const EmittedOp& op = e.ops[i];
    json o = {{"index", i},
              {"name", op.name},
              {"type", op.type},
              {"kernel", op.kernel->symbol},
              {"kernel_id", op.kernel->id},
              {"macs", op.macs},
              {"activation_bytes", op.activation_bytes},
              {"constant_bytes", op.constant_bytes},
              {"constants_region", op.constants_region},
              {"scratch_bytes", op.scratch_bytes}};
    if (op.lean) {
      o["lean"] = true;
      o["lean_bytes"] = op.lean_bytes;
    }
    if (op.streamed) {
      o["in_place"] = op.pixels ? "stream-pixels" : "stream-rows";
      o["line_buffer_bytes"] = op.line_bytes;
      o["stream_rows"] = op.stream_rows;
    } else if (op.aliased) {
      o["in_place"] = "alias";
    }
    if (op.pipe_stage >= 0) {
      o["pipe_stage"] = op.pipe_stage;
      o["pipe_stages"] = op.pipe_stages;
      if (op.window_bytes > 0) o["window_bytes"] = op.window_bytes;
    }
    j["ops"].push_back(o);
  }
  j["buffers"] = json::array();
  for (const EmittedBuffer& b : e.buffers) {
    j["buffers"].push_back({{"name", b.name},
                            {"region", b.region},
                            {"offset", b.offset},
                            {"bytes", b.bytes},
                            {"first_op", b.first},
                            {"last_op", b.last}});
  }
  return j;
}

std::string SummaryText(const Emitted& e) {
  std::ostringstream s;
  s << "target " << e.board.name << " (" << e.board.cpu << ", " << e.board.isa_class << "), "
    << e.ops.size() << " ops\n";
  s << "RAM per region (bytes used / capacity):\n";
  for (const plan::RegionUsage& u : e.plan.regions) {
    s << "  " << u.name << std::string(u.name.size() < 10 ? 10 - u.name.size() : 1, ' ')
      << Grouped(u.used) << " / " << Grouped(u.capacity);
    if (u.used > 0)
      s << "   peak at op '" << StepName(e, u.peak_step) << "' (#" << u.peak_step << ")";
    s << "\n";
  }
  if (const plan::RegionUsage* p = PeakRegion(e)) {
    s << "peak RAM " << Grouped(e.plan.total_bytes) << " bytes (activations, scratch, line "
      << "buffers); set by op '" << StepName(e, p->peak_step) << "' (#" << p->peak_step << ") with "
      << Grouped(p->live_at_peak) << " bytes live in " << p->name << "\n";
  }
  if (e.ram_constant_bytes > 0) {
    for (size_t i = 0; i < e.layout.segments.size(); ++i) {
      if (i < e.segment_in_ram.size() && e.segment_in_ram[i]) {
        s << "hot constants " << Grouped(e.layout.segments[i].second) << " bytes in "
          << e.program.segments[i].region << " (copied from " << e.board.weights_region
          << " at init; RAM total " << Grouped(e.plan.total_bytes + e.ram_constant_bytes)
          << " bytes)\n";
      }
    }
  }
  if (!e.program.state.empty()) {
    s << "state " << Grouped(StateBytes(e)) << " bytes kept across runs (" << e.program.state.size()
      << " input/output pair" << (e.program.state.size() > 1 ? "s" : "") << ", in the RAM above)\n";
  }
  s << "flash " << Grouped(e.layout.head_size + FlashConstants(e)) << " bytes: program "
    << Grouped(e.layout.head_size);
  for (size_t i = 0; i < e.layout.segments.size(); ++i) {
    s << ", constants " << Grouped(e.layout.segments[i].second) << " in "
      << (i < e.segment_in_ram.size() && e.segment_in_ram[i]
              ? e.board.weights_region + " (image of the copy in " +
                    e.program.segments[i].region + ")"
              : e.program.segments[i].region);
  }
  s << "\nkernels:";
  for (const rt::KernelInfo* k : e.kernels) s << " " << k->symbol;
  s << "\n";
  return s.str();
}

}  // namespace tinyforge::emit
