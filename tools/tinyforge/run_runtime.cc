// `tinyforge run PROGRAM.bin -i x.npy [-o y.npy]` and `tinyforge run m.tfg --runtime
// [--target T]`: executes a program image through the device runtime (runtime/, host build,
// every kernel in its table), the same code and program the firmware runs. A graph is
// lowered (if it is not yet) and compiled for the target in memory first. --dump-dir DIR
// writes every arena after each op (the format of the board firmware's dump mode).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "emit/emitter.h"
#include "exec/npy.h"
#include "load_graph.h"
#include "tinyforge/kernel_table.h"
#include "tinyforge/runtime.h"
#include "support/file.h"

namespace tinyforge::cli {
namespace {

using nlohmann::json;
namespace rt = tinyforge::rt;

// 16-byte aligned storage (the runtime requires aligned programs and arenas).
struct AlignedBytes {
  std::vector<uint8_t> raw;
  uint8_t* data = nullptr;
  explicit AlignedBytes(size_t n) : raw(n + 16, 0) {
    data = raw.data() + (16 - reinterpret_cast<uintptr_t>(raw.data()) % 16) % 16;
  }
};

ir::DType DTypeOf(uint8_t d) {
  return d == rt::fmt::kInt8    ? ir::DType::kInt8
         : d == rt::fmt::kInt32 ? ir::DType::kInt32
                                : ir::DType::kFloat32;
}

Expected<std::vector<uint8_t>> ProgramFor(const RunArgs& args) {
  if (IsProgramFile(args.graph)) {
    return ReadInputFile(args.graph);
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
  auto layout = emit::ReadImageLayout(*image);
  if (!layout.ok()) return Fail(layout.error().WithPrefix(args.graph));
  AlignedBytes program(image->size());
  std::memcpy(program.data, image->data(), image->size());
  std::vector<AlignedBytes> arenas;
  std::vector<tf_arena> arena_defs;
  arenas.reserve(layout->regions.size());
  for (const auto& [name, size] : layout->regions) {
    arenas.emplace_back(size);
    arena_defs.push_back({arenas.back().data, size});
  }
  tf_model_def def{};
  def.program = program.data;
  def.program_size = static_cast<uint32_t>(image->size());
  def.arenas = arena_defs.data();
  def.num_arenas = static_cast<uint32_t>(arena_defs.size());
  def.kernels = tf_all_kernels;
  def.num_kernels = tf_all_kernels_count;
  rt::Model model;
  const rt::Status init = model.Init(def);
  if (!rt::Ok(init)) {
    return Fail(Error(args.graph + ": invalid program: " + rt::StatusText(init)));
  }
  if (static_cast<int32_t>(args.inputs.size()) != model.num_inputs()) {
    return Fail(Error("the program has " + std::to_string(model.num_inputs()) +
                                       " input(s), got " + std::to_string(args.inputs.size())));
  }
  if (!args.outputs.empty() && static_cast<int32_t>(args.outputs.size()) != model.num_outputs()) {
    return Fail(Error("the program has " + std::to_string(model.num_outputs()) +
                                       " output(s), " + std::to_string(args.outputs.size()) +
                                       " --output given"));
  }
  for (int32_t i = 0; i < model.num_inputs(); ++i) {
    auto t = exec::ReadInputNpy(args.inputs[static_cast<size_t>(i)]);
    if (!t.ok()) return Fail(t.error());
    tf_tensor_info info;
    (void)model.Input(i, &info);
    const std::vector<uint8_t> bytes = t->ToBytes();
    ir::Shape shape(info.dims, info.dims + info.rank);
    if (t->dtype() != DTypeOf(info.dtype) || t->shape() != shape) {
      return Fail(Error("input " + std::to_string(i) + ": " +
                                         args.inputs[static_cast<size_t>(i)] +
                                         " does not match the program input's dtype and shape"));
    }
    std::memcpy(info.data, bytes.data(), bytes.size());
  }
  // --dump-dir: after each op k, every arena j as DIR/<k>_<j>.bin (k as %03d), the raw bytes
  // the board firmware's dump mode writes too (runtime/firmware/model_runner.cc), so that
  // `tinyforge run --board` can name the first op whose output differs.
  ArenaDump dump{args.dump_dir, &arena_defs, 0};
  if (!args.dump_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.dump_dir, ec);
    if (ec) return Fail(Error::Io(args.dump_dir + ": cannot create directory: " + ec.message()));
    model.SetProfiler(DumpArenas, &dump);
  }
  const rt::Status run = model.Run();
  if (dump.errors != 0) return Fail(Error::Io(args.dump_dir + ": cannot write the dump"));
  if (!rt::Ok(run)) return Fail(Error::Internal(args.graph + ": " + rt::StatusText(run)));
  json summary = {{"program", args.graph}, {"runtime", true}, {"outputs", json::array()}};
  for (int32_t i = 0; i < model.num_outputs(); ++i) {
    tf_tensor_info info;
    (void)model.Output(i, &info);
    ir::Shape shape(info.dims, info.dims + info.rank);
    auto t = exec::HostTensor::FromBytes(
        DTypeOf(info.dtype), shape,
        std::span<const uint8_t>(static_cast<const uint8_t*>(info.data), info.bytes));
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
