// `tinyforge compile m.tfg --target BOARD|CPU -o DIR [--place T=R]... [--weights-in OP=R]...
// [--json]`: after lowering, plans memory for the board and writes DIR/program.bin,
// DIR/model.h, DIR/model.cc and DIR/report.json (compiler/emit). Prints the plan: per
// region bytes used / capacity, the peak and the op that sets it.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unordered_map>

#include "commands.h"
#include "emit/emitter.h"
#include "emit/model_source.h"
#include "emit/report.h"

namespace tinyforge::cli {
namespace {

Expected<std::vector<std::pair<std::string, std::string>>> Pairs(
    const std::vector<std::string>& items, const std::string& flag) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& s : items) {
    const size_t eq = s.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      return Error(flag + ": expected NAME=REGION, got '" + s + "'");
    }
    out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

Status WriteFile(const std::filesystem::path& path, const void* data, size_t size) {
  std::ofstream f(path, std::ios::binary);
  if (!f) return Error::Io(path.string() + ": cannot open for writing");
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!f) return Error::Io(path.string() + ": write failed");
  return OkStatus();
}

// report.json: emit::Report plus the operands of each op and the program's inputs and
// outputs as `inspect --json` describes tensors (name, dtype, shape, bytes, constant, quant),
// taken from the lowered graph the program was emitted from (ops matched by name), and
// `elided_ops`: the graph's ops that run no kernel (a reshape: its output is its input's
// bytes). The graph the Model Explorer adapter draws for a compiled directory
// (python/tinyforge/explorer).
nlohmann::json ReportJson(const emit::Emitted& e, const ir::Graph& lowered) {
  nlohmann::json j = emit::Report(e);
  auto tensors = [&](const std::vector<ir::TensorId>& ids) {
    nlohmann::json a = nlohmann::json::array();
    for (ir::TensorId t : ids) a.push_back(TensorJson(lowered, t));
    return a;
  };
  j["inputs"] = tensors(lowered.inputs);
  j["outputs"] = tensors(lowered.outputs);
  std::unordered_map<std::string, const ir::Op*> by_name;
  for (const ir::Op& op : lowered.ops) by_name.emplace(op.name, &op);
  for (nlohmann::json& o : j["ops"]) {
    const auto it = by_name.find(o["name"].get<std::string>());
    if (it == by_name.end()) continue;
    o["inputs"] = tensors(it->second->inputs);
    o["outputs"] = tensors(it->second->outputs);
    by_name.erase(it);
  }
  j["elided_ops"] = nlohmann::json::array();
  for (const ir::Op& op : lowered.ops) {
    if (!by_name.count(op.name)) continue;
    j["elided_ops"].push_back({{"name", op.name},
                               {"type", std::string(ir::OpTypeName(op.type))},
                               {"inputs", tensors(op.inputs)},
                               {"outputs", tensors(op.outputs)}});
  }
  return j;
}

}  // namespace

int CompileForTarget(const CompileArgs& args, const ir::Graph& lowered) {
  if (!args.name.empty() && emit::CIdentifier(args.name) != args.name) {
    return Fail(Error("--name: '" + args.name + "' is not a lower-case C identifier (try '" +
                      emit::CIdentifier(args.name) + "')"));
  }
  emit::EmitOptions options;
  options.target = args.target;
  options.memory = args.memory;
  auto place = Pairs(args.place, "--place");
  if (!place.ok()) return Fail(place.error());
  auto weights = Pairs(args.weights_in, "--weights-in");
  if (!weights.ok()) return Fail(weights.error());
  options.place = *place;
  options.weights_in = *weights;
  options.stream = args.min_ram          ? emit::StreamMode::kMinRam
                   : args.speed_over_ram ? emit::StreamMode::kOff
                                         : emit::StreamMode::kBudget;
  options.stream_pixels = args.stream_pixels;
  options.kernels_by_ram = args.min_ram;
  options.lean = !args.speed_over_ram;
  options.pipes = !args.no_pipes;
  options.kernels = args.kernels;
  options.optimize = args.optimize;
  options.hot_constants = args.hot_constants;
  auto e = emit::EmitProgram(lowered, options);
  if (!e.ok()) return Fail(e.error().WithPrefix(args.graph));
  if (args.json) {
    std::cout << emit::Summary(*e).dump(2) << "\n";
  } else {
    std::cout << emit::SummaryText(*e);
  }
  if (args.output.empty()) return kExitOk;
  namespace fs = std::filesystem;
  const fs::path dir(args.output);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Fail(Error::Io(args.output + ": cannot create directory: " + ec.message()));
  const emit::ModelSources src = emit::GenerateModelSources(*e, args.name);
  // Names come from the model file: replace invalid UTF-8 rather than throw (as inspect).
  const std::string report =
      ReportJson(*e, lowered).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
      "\n";
  for (Status s : {WriteFile(dir / "program.bin", e->image.data(), e->image.size()),
                   WriteFile(dir / "model.h", src.header.data(), src.header.size()),
                   WriteFile(dir / "model.cc", src.source.data(), src.source.size()),
                   WriteFile(dir / "report.json", report.data(), report.size())}) {
    if (!s.ok()) return Fail(s.error());
  }
  if (!args.json) {
    std::cout << "wrote " << (dir / "program.bin").string() << " (" << e->image.size()
              << " bytes), model.h, model.cc, report.json\n";
  }
  return kExitOk;
}

}  // namespace tinyforge::cli
