// `tinyforge run PROGRAM.bin -i x.npy [-o y.npy]` and `tinyforge run m.tfg --runtime
// [--target T]`: executes a program image through the device runtime (runtime/, host build,
// every kernel in its table), the same code and program the firmware runs. `--steps N`
// runs N calls in one session (streaming models carry their state from call to call). A graph is
// lowered (if it is not yet) and compiled for the target in memory first. --dump-dir DIR
// writes every arena after each op (the format of the board firmware's dump mode).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "emit/emitter.h"
#include "exec/npy.h"
#include "load_graph.h"
#include "support/input_file.h"
#include "tinyforge/kernel_ids.h"
#include "tinyforge/kernel_table.h"
#include "tinyforge/runtime.h"

namespace tinyforge::cli {
namespace {

using nlohmann::json;
namespace rt = tinyforge::rt;

// Largest total arena the host runtime allocates for a program (docs/limits.md).
constexpr uint64_t kMaxHostArenaBytes = uint64_t{256} << 20;

// Zeroed storage aligned to `align` (a power of two <= 4096, as the runtime requires of
// programs and arenas). calloc: pages the run never touches cost no memory.
struct AlignedBytes {
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> raw;
  uint8_t* data = nullptr;
  AlignedBytes(size_t n, size_t align) : raw(static_cast<uint8_t*>(std::calloc(n + align, 1))) {
    if (!raw) throw std::bad_alloc();
    data = raw.get() + (align - reinterpret_cast<uintptr_t>(raw.get()) % align) % align;
  }
};

// "op 3 (s8_add__ref)": the op a failed Init or Inspect names, or "".
std::string FailedOp(const rt::Model& m) {
  if (m.error_op() < 0) return "";
  const rt::KernelInfo* k = rt::FindKernel(m.error_kernel());
  return "op " + std::to_string(m.error_op()) + " (" +
         (k != nullptr ? std::string(k->symbol) : "kernel id " + std::to_string(m.error_kernel())) +
         "): ";
}

ir::DType DTypeOf(uint8_t d) {
  return d == rt::fmt::kInt8    ? ir::DType::kInt8
         : d == rt::fmt::kInt32 ? ir::DType::kInt32
                                : ir::DType::kFloat32;
}

Expected<std::vector<uint8_t>> ProgramFor(const RunArgs& args) {
  if (IsProgramFile(args.graph)) {
    return ReadInputFile(args.graph, {"program", kMaxProgramFileBytes, 0,
                                      std::string_view(reinterpret_cast<const char*>(
                                                           rt::fmt::kMagic),
                                                       4)});
  }
  TF_ASSIGN_OR_RETURN(ir::Graph g, LoadGraph(args.graph, args.rounding));
  if (g.kind != ir::GraphKind::kInt8) {
    passes::LowerOptions lower;
    auto runs = passes::Lower(g, lower);
    TF_RETURN_IF_ERROR_PREFIX(runs, args.graph);
  }
  emit::EmitOptions options;
  options.target = args.target;
  auto e = emit::EmitProgram(g, options);
  TF_RETURN_IF_ERROR_PREFIX(e, args.graph);
  return std::move(e->image);
}

struct ArenaDump {
  std::string dir;
  const std::vector<tf_arena>* arenas;
  int errors;
};

void DumpArenas(void* user, int32_t op, uint32_t, int end) {
  if (!end) return;
  auto* d = static_cast<ArenaDump*>(user);
  for (size_t j = 0; j < d->arenas->size(); ++j) {
    char name[64];
    std::snprintf(name, sizeof name, "%03d_%zu.bin", static_cast<int>(op), j);
    std::ofstream f(std::filesystem::path(d->dir) / name, std::ios::binary);
    const tf_arena& a = (*d->arenas)[j];
    f.write(reinterpret_cast<const char*>(a.data), static_cast<std::streamsize>(a.size));
    if (!f) ++d->errors;
  }
}

}  // namespace

bool IsProgramFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char magic[4] = {};
  return f.read(magic, 4) && std::memcmp(magic, rt::fmt::kMagic, 4) == 0;
}

int RunOnRuntime(const RunArgs& args) {
  auto image = ProgramFor(args);
  if (!image.ok()) return Fail(image.error());
  if (image->size() > 0xffffffffu) return Fail(Error(args.graph + ": too large"));
  AlignedBytes program(image->size(), rt::fmt::kAlign);
  std::memcpy(program.data, image->data(), image->size());
  tf_model_def def{};
  def.program = program.data;
  def.program_size = static_cast<uint32_t>(image->size());
  def.kernels = tf_all_kernels;
  def.num_kernels = tf_all_kernels_count;
  rt::Model model;
  // Validate the whole program (CRCs, tables, lifetimes) before allocating its arenas.
  const rt::Status checked = model.Inspect(def);
  if (!rt::Ok(checked)) {
    return Fail(Error(args.graph + ": invalid program: " + FailedOp(model) +
                      rt::StatusText(checked)));
  }
  uint64_t arena_bytes = 0;
  for (uint32_t r = 0; r < model.num_regions(); ++r) arena_bytes += model.region_size(r);
  if (arena_bytes > kMaxHostArenaBytes) {
    return Fail(Error(args.graph + ": the program's arenas need " +
                      std::to_string(arena_bytes) + " bytes, more than the " +
                      std::to_string(kMaxHostArenaBytes >> 20) +
                      " MiB the host runtime allocates (docs/limits.md)"));
  }
  std::vector<AlignedBytes> arenas;
  std::vector<tf_arena> arena_defs;
  arenas.reserve(model.num_regions());
  for (uint32_t r = 0; r < model.num_regions(); ++r) {
    arenas.emplace_back(model.region_size(r), model.region_align(r));
    arena_defs.push_back({arenas.back().data, model.region_size(r)});
  }
  def.arenas = arena_defs.data();
  def.num_arenas = static_cast<uint32_t>(arena_defs.size());
  const rt::Status init = model.Init(def);
  if (!rt::Ok(init)) {
    return Fail(Error(args.graph + ": invalid program: " + FailedOp(model) +
                      rt::StatusText(init)));
  }
  // State inputs (program section STATE) start from the reset state unless given: -i names
  // every input, or only the others. With --steps N each of the others holds N calls'
  // inputs stacked along a new first axis, and each output is written stacked the same way.
  std::vector<bool> is_state(static_cast<size_t>(model.num_inputs()), false);
  for (int32_t k = 0; k < model.num_states(); ++k) {
    int32_t in = 0;
    (void)model.StateInfo(k, &in, nullptr);
    is_state[static_cast<size_t>(in)] = true;
  }
  const int32_t num_free = model.num_inputs() - model.num_states();
  const bool all_given = static_cast<int32_t>(args.inputs.size()) == model.num_inputs();
  if (!all_given && static_cast<int32_t>(args.inputs.size()) != num_free) {
    return Fail(Error("the program has " + std::to_string(model.num_inputs()) + " input(s)" +
                      (model.num_states() > 0
                           ? " (" + std::to_string(model.num_states()) +
                                 " of them state, which may be left out)"
                           : std::string()) +
                      ", got " + std::to_string(args.inputs.size())));
  }
  if (!args.outputs.empty() && static_cast<int32_t>(args.outputs.size()) != model.num_outputs()) {
    return Fail(Error("the program has " + std::to_string(model.num_outputs()) +
                                       " output(s), " + std::to_string(args.outputs.size()) +
                                       " --output given"));
  }
  if (args.steps < 0 || args.reset_every < 0) {
    return Fail(Error("--steps and --reset-every must be positive"));
  }
  const bool stacked = args.steps > 0;
  const int64_t steps = stacked ? args.steps : 1;
  // Each given input's bytes: one call's (state inputs, unstacked inputs) or `steps` calls'.
  std::vector<std::vector<uint8_t>> given(static_cast<size_t>(model.num_inputs()));
  for (int32_t i = 0, arg = 0; i < model.num_inputs(); ++i) {
    const bool state = is_state[static_cast<size_t>(i)];
    if (state && !all_given) continue;
    const std::string& path = args.inputs[static_cast<size_t>(arg++)];
    auto t = exec::ReadInputNpy(path);
    if (!t.ok()) return Fail(t.error());
    tf_tensor_info info;
    (void)model.Input(i, &info);
    ir::Shape shape(info.dims, info.dims + info.rank);
    if (stacked && !state) shape.insert(shape.begin(), steps);
    if (t->dtype() != DTypeOf(info.dtype) || t->shape() != shape) {
      return Fail(Error("input " + std::to_string(i) + ": " + path + " does not match the " +
                        "program input's dtype and shape" +
                        (stacked && !state ? " with --steps " + std::to_string(steps) +
                                                 " calls stacked first"
                                           : std::string())));
    }
    given[static_cast<size_t>(i)] = t->ToBytes();
  }
  // --dump-dir: after each op k, every arena j as DIR/<k>_<j>.bin (k as %03d), the raw bytes
  // the board firmware's dump mode writes too (runtime/firmware/model_runner.cc), so that
  // `tinyforge run --board` can name the first op whose output differs. The first call only.
  ArenaDump dump{args.dump_dir, &arena_defs, 0};
  if (!args.dump_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.dump_dir, ec);
    if (ec) return Fail(Error::Io(args.dump_dir + ": cannot create directory: " + ec.message()));
    model.SetProfiler(DumpArenas, &dump);
  }
  std::vector<std::vector<uint8_t>> produced(static_cast<size_t>(model.num_outputs()));
  for (int64_t step = 0; step < steps; ++step) {
    if (args.reset_every > 0 && step > 0 && step % args.reset_every == 0) {
      (void)model.ResetState();
    }
    for (int32_t i = 0; i < model.num_inputs(); ++i) {
      const std::vector<uint8_t>& bytes = given[static_cast<size_t>(i)];
      if (bytes.empty()) continue;  // a state input left to the runtime
      tf_tensor_info info;
      (void)model.Input(i, &info);
      if (is_state[static_cast<size_t>(i)]) {
        // The given initial state: written at the start and after each reset only.
        if (step == 0 || (args.reset_every > 0 && step % args.reset_every == 0)) {
          std::memcpy(info.data, bytes.data(), info.bytes);
        }
      } else {
        const size_t at = stacked ? static_cast<size_t>(step) * info.bytes : 0;
        std::memcpy(info.data, bytes.data() + at, info.bytes);
      }
    }
    const rt::Status run = model.Run();
    if (step == 0) model.SetProfiler(nullptr, nullptr);
    if (dump.errors != 0) return Fail(Error::Io(args.dump_dir + ": cannot write the dump"));
    if (!rt::Ok(run)) {
      return Fail(Error::Internal(args.graph + ": " + rt::StatusText(run) +
                                  (stacked ? " (call " + std::to_string(step) + ")" : "")));
    }
    for (int32_t i = 0; i < model.num_outputs(); ++i) {
      tf_tensor_info info;
      (void)model.Output(i, &info);
      const auto* data = static_cast<const uint8_t*>(info.data);
      produced[static_cast<size_t>(i)].insert(produced[static_cast<size_t>(i)].end(), data,
                                              data + info.bytes);
    }
  }
  json summary = {{"program", args.graph}, {"runtime", true}, {"outputs", json::array()}};
  if (stacked) summary["steps"] = steps;
  for (int32_t i = 0; i < model.num_outputs(); ++i) {
    tf_tensor_info info;
    (void)model.Output(i, &info);
    ir::Shape shape(info.dims, info.dims + info.rank);
    if (stacked) shape.insert(shape.begin(), steps);
    auto t = exec::HostTensor::FromBytes(DTypeOf(info.dtype), shape,
                                         produced[static_cast<size_t>(i)]);
    if (!t.ok()) return Fail(t.error());
    json o = {{"index", i},
              {"shape", shape},
              {"scale", info.scale},
              {"zero_point", info.zero_point},
              {"values", ValueSummary(*t)}};
    if (!args.outputs.empty()) {
      Status w = exec::WriteNpy(args.outputs[static_cast<size_t>(i)], *t);
      if (!w.ok()) return Fail(w.error());
      o["file"] = args.outputs[static_cast<size_t>(i)];
    }
    summary["outputs"].push_back(o);
  }
  if (args.json) {
    std::cout << summary.dump(2) << "\n";
  } else {
    for (const json& o : summary["outputs"]) {
      std::cout << "output " << o["index"].get<int>() << ": " << o["shape"].dump()
                << (o.contains("file") ? " -> " + o["file"].get<std::string>() : "") << "\n";
    }
  }
  return kExitOk;
}

}  // namespace tinyforge::cli
