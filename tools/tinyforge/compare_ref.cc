// The reference side of `tinyforge compare`.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "compare.h"
#include "python_env.h"
#include "exec/executor.h"
#include "exec/npy.h"
#include "passes/util.h"

namespace tinyforge::cli {
namespace {

namespace fs = std::filesystem;

// Activations unquantized: readers of dequantize(quantize(t)) read t.
ir::Graph FloatView(ir::Graph g) {
  const auto producers = ir::ComputeProducers(g);
  for (ir::Op& op : g.ops) {
    if (op.type != ir::OpType::kDequantize) continue;
    const int q = producers[static_cast<size_t>(op.inputs[0])];
    if (q == ir::kNoProducer || g.ops[static_cast<size_t>(q)].type != ir::OpType::kQuantize) {
      continue;
    }
    passes::ReplaceUses(g, op.outputs[0], g.ops[static_cast<size_t>(q)].inputs[0]);
  }
  passes::RemoveDeadCode(g);
  return g;
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

Expected<RefValues> RunHost(const ir::Graph& ref, bool float_view,
                            const std::vector<exec::HostTensor>& inputs) {
  const ir::Graph g = float_view ? FloatView(ref) : ref;
  exec::RunOptions options;
  options.keep_all = true;
  TF_ASSIGN_OR_RETURN(exec::RunResult r, exec::Run(g, inputs, options));
  RefValues out;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (!r.tensors[t] || g.tensors[t].is_constant()) continue;
    out[g.tensors[t].name] = RefValue{std::move(*r.tensors[t]), g.tensors[t].quant};
  }
  return out;
}

Expected<RefValues> RunPytorch(const std::string& ref_path, const ir::Graph& ref,
                               const std::vector<std::string>& input_paths) {
  std::error_code ec;
  std::string tmpl = (fs::temp_directory_path(ec) / "tinyforge-compare-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) return Error::Io("cannot create a temporary directory");
  const fs::path dir = tmpl;
  SetPythonEnvironment();
  std::string cmd = ShellQuote(PythonExecutable()) + " -m tinyforge.interp " + ShellQuote(ref_path);
  for (const std::string& p : input_paths) cmd += " --input " + ShellQuote(p);
  cmd += " --dump-dir " + ShellQuote(dir.string()) + " 2> " + ShellQuote((dir / "stderr").string());
  const int rc = std::system(cmd.c_str());
  auto cleanup = [&] { fs::remove_all(dir, ec); };
  if (rc != 0) {
    std::ifstream err(dir / "stderr");
    std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
    cleanup();
    // The interpreter exits 2 on invalid input (errors.py), like this command.
    const bool invalid = WIFEXITED(rc) && WEXITSTATUS(rc) == kExitInvalidInput;
    return Error("python -m tinyforge.interp failed (set TINYFORGE_PYTHON to a Python with " +
                     std::string("the tinyforge package):\n") + text,
                 invalid ? ErrorKind::kInvalidInput : ErrorKind::kInternal);
  }
  auto out = ReadDump(dir.string(), ref);
  cleanup();
  return out;
}

Expected<RefValues> ReadDump(const std::string& dir_name, const ir::Graph& ref) {
  const fs::path dir = dir_name;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Error(dir_name + ": not a directory");
  std::vector<std::pair<std::string, fs::path>> files;  // tensor name, file
  try {
    if (fs::exists(dir / "manifest.json", ec)) {
      std::ifstream mf(dir / "manifest.json");
      const nlohmann::json manifest = nlohmann::json::parse(mf);
      for (const auto& [name, file] : manifest.items()) {
        files.emplace_back(name, dir / file.get<std::string>());
      }
    } else {
      for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string f = entry.path().filename().string();
        const size_t us = f.find('_');
        if (us == std::string::npos || entry.path().extension() != ".npy") continue;
        const long id = std::strtol(f.substr(0, us).c_str(), nullptr, 10);
        if (id < 0 || static_cast<size_t>(id) >= ref.tensors.size()) continue;
        files.emplace_back(ref.tensors[static_cast<size_t>(id)].name, entry.path());
      }
    }
  } catch (const std::exception& e) {
    return Error(dir_name + ": unreadable dump: " + e.what());
  }
  RefValues out;
  for (const auto& [name, path] : files) {
    const auto id = ref.FindTensor(name);
    if (id && ref.tensor(*id).is_constant()) continue;
    TF_ASSIGN_OR_RETURN(exec::HostTensor t, exec::ReadNpy(path.string()));
    out[name] = RefValue{std::move(t), id ? ref.tensor(*id).quant : std::nullopt};
  }
  return out;
}

}  // namespace tinyforge::cli
