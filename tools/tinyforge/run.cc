// `tinyforge run m.tfg --input x.npy ... [--output y.npy ...] [--dump-dir DIR] [--json]`:
// runs the graph on the host with the reference ops.
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "exec/executor.h"
#include "exec/npy.h"
#include "import/graph_file.h"
#include "load_graph.h"
#include "ir/printer.h"
#include "support/text.h"

namespace tinyforge::cli {
namespace {

using nlohmann::json;

// "007_conv1_out.npy": tensor index, zero-padded to sort in id order, and the name with
// anything but [A-Za-z0-9_.-] replaced so that any tensor name makes a valid file name.
std::string DumpFileName(ir::TensorId id, size_t count, const std::string& name) {
  std::string digits = std::to_string(id);
  const size_t width = std::max<size_t>(3, std::to_string(count > 0 ? count - 1 : 0).size());
  std::string safe;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    safe += ok ? c : '_';
  }
  if (safe.empty() || safe[0] == '.') safe = "_" + safe;
  // File names are limited to 255 bytes; the id prefix keeps truncated names unique
  // (TFLite tensor names of fused ops run to several hundred characters).
  if (safe.size() > 120) safe.resize(120);
  return std::string(width - std::min(width, digits.size()), '0') + digits + "_" + safe + ".npy";
}

}  // namespace

int Run(const RunArgs& args) {
  if (args.runtime || IsProgramFile(args.graph)) return RunOnRuntime(args);  // run_runtime.cc
  if (args.steps != 0 || args.reset_every != 0) {
    return Fail(Error("--steps and --reset-every run through the device runtime: give a "
                      "program.bin or add --runtime"));
  }
  auto graph = LoadGraph(args.graph, args.rounding);  // .tfg or .tflite (load_graph.h)
  if (!graph.ok()) return Fail(graph.error());
  const ir::Graph& g = *graph;
  if (!args.outputs.empty() && args.outputs.size() != g.outputs.size()) {
    return Fail(Error("the graph has " + std::to_string(g.outputs.size()) +
                                       " output(s), " + std::to_string(args.outputs.size()) +
                                       " --output given (give one per output, or none)"));
  }
  std::vector<exec::HostTensor> inputs;
  for (const std::string& path : args.inputs) {
    auto t = exec::ReadInputNpy(path);
    if (!t.ok()) return Fail(t.error());
    inputs.push_back(std::move(*t));
  }
  Status ok = exec::CheckInputs(g, inputs);
  if (!ok.ok()) return Fail(ok.error().WithPrefix(args.graph));

  exec::RunOptions options;
  options.keep_all = !args.dump_dir.empty();
  auto result = exec::Run(g, inputs, options);
  if (!result.ok()) return Fail(result.error().WithPrefix(args.graph));

  json summary = {{"graph", args.graph}, {"outputs", json::array()}};
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const exec::HostTensor& t = result->outputs[i];
    json o = TensorJson(g, g.outputs[i]);
    o["values"] = ValueSummary(t);
    if (!args.outputs.empty()) {
      Status w = exec::WriteNpy(args.outputs[i], t);
      if (!w.ok()) return Fail(w.error());
      o["file"] = args.outputs[i];
    }
    summary["outputs"].push_back(std::move(o));
  }
  if (!args.dump_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.dump_dir, ec);
    if (ec) return Fail(Error::Io(args.dump_dir + ": cannot create directory: " + ec.message()));
    int dumped = 0;
    for (size_t id = 0; id < result->tensors.size(); ++id) {
      const auto& value = result->tensors[id];
      if (!value) continue;  // a tensor nothing defines or reads
      const std::string path =
          (std::filesystem::path(args.dump_dir) /
           DumpFileName(static_cast<ir::TensorId>(id), g.tensors.size(), g.tensors[id].name))
              .string();
      Status w = exec::WriteNpy(path, *value);
      if (!w.ok()) return Fail(w.error());
      ++dumped;
    }
    summary["dump_dir"] = args.dump_dir;
    summary["dumped"] = dumped;
  }

  if (args.json) {
    std::cout << summary.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const json& o = summary["outputs"][i];
    const json& v = o["values"];
    std::cout << "output " << i << " " << ir::PrintName(o["name"].get<std::string>()) << ": "
              << TypeSummary(g.tensor(g.outputs[i]));
    if (o.contains("file")) std::cout << " -> " << o["file"].get<std::string>();
    std::cout << "  min=" << v["min"].dump() << " max=" << v["max"].dump()
              << " mean=" << v["mean"].dump() << " argmax=" << v["argmax"].dump() << "\n";
  }
  if (summary.contains("dumped")) {
    std::cout << "dumped " << summary["dumped"].get<int>() << " tensors to " << args.dump_dir
              << "\n";
  }
  return kExitOk;
}

}  // namespace tinyforge::cli
