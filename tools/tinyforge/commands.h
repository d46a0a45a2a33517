// Subcommands of the `tinyforge` CLI. Each returns the process exit code (docs/decisions.md):
//   0 success, 1 failure while running (a bug, or the system failed: an output cannot be
//   written), 2 invalid input (malformed graph file or .npy, wrong input shape or dtype, a
//   model that does not fit the target or uses an unsupported op, bad command line).
// The code is derived from the Error's kind in ExitCode, nowhere else.
#pragma once

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/host_tensor.h"
#include "ir/graph.h"
#include "passes/pipeline.h"

namespace tinyforge::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitInvalidInput = 2;

// The one mapping from an error's kind to the exit code (python/tinyforge/errors.py mirrors
// it for the Python commands).
constexpr int ExitCode(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidInput:
    case ErrorKind::kUnsupported:
      return kExitInvalidInput;
    case ErrorKind::kInternal:
    case ErrorKind::kIo:
      return kExitFailure;
  }
  return kExitFailure;
}

// Prints "error: MESSAGE" (one line) to stderr and returns ExitCode(e.kind()). An internal
// error says so: "error: internal error: ...".
inline int Fail(const Error& e) {
  std::cerr << "error: " << (e.kind() == ErrorKind::kInternal ? "internal error: " : "")
            << e.message() << "\n";
  return ExitCode(e.kind());
}

struct OpsArgs {
  bool json = false;
};
int Ops(const OpsArgs& args);  // ops.cc

struct InspectArgs {
  std::string graph;
  bool json = false;
};
int Inspect(const InspectArgs& args);

struct RunArgs {
  std::string graph;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::string dump_dir;
  bool json = false;
  // Through the device runtime (run_runtime.cc): a program image (program.bin) always runs
  // there; a graph does with --runtime, compiled in memory for `target` first.
  bool runtime = false;
  std::string target = "cortex-m55";
  std::string rounding;  // --rounding: override the graph's (single / double)
  // Through the runtime: --steps N runs N calls (inputs and outputs stacked along a new
  // first axis), --reset-every K resets the model's state before every K-th call.
  int64_t steps = 0;
  int64_t reset_every = 0;
};
int Run(const RunArgs& args);
// run_runtime.cc
int RunOnRuntime(const RunArgs& args);
bool IsProgramFile(const std::string& path);  // starts with the program magic "TFPG"

// board_delegate.cc: `run ... --board B` and `profile` run on an emulated board, through the
// Python driver (python/tinyforge/board.py); `report` writes the HTML page of a compiled model
// (python/tinyforge/report.py). RunPythonDriver execs `python -m MODULE argv[first_arg:]` and
// returns only on error.
struct PythonDriver {
  std::string module;
  int first_arg = 1;  // the first argv element passed on (1: the subcommand too)
};
std::optional<PythonDriver> WantsPythonDriver(int argc, char** argv);
int RunPythonDriver(const PythonDriver& driver, int argc, char** argv);

struct CompileArgs {
  std::string graph;
  std::string output;       // -o: the lowered graph file (.tfg); empty = do not write
  std::string passes;       // --passes=a,b,c; empty = the default pipeline
  std::string print_after;  // a pass name or "all"
  bool verify_each = false;
  bool verbose = false;     // -v: time of each pass (stderr)
  std::string io = "int8";
  std::string layout = "NHWC";
  std::string rounding;  // --rounding: override the graph's (single / double)
  // --target (compile_target.cc): plan memory and emit a program for a board; -o is then
  // the output directory (program.bin, model.h, model.cc, report.json).
  std::string target;
  std::string memory;  // --memory: with a CPU --target, the board's regions
  std::vector<std::string> place;       // --place TENSOR=REGION
  std::vector<std::string> weights_in;  // --weights-in OP=REGION
  bool json = false;                    // --json: print the plan summary as JSON
  bool min_ram = false;                 // --min-ram: stream ops by rows (RAM over speed)
  bool no_pipes = false;                // --no-pipes: --min-ram without pipes (decision 84)
  bool speed_over_ram = false;          // --speed-over-ram: whole-tensor calls only
  int stream_pixels = 0;                // --stream-pixels: fewest output pixels per call
  std::string kernels = "auto";         // --kernels: auto | ref | scalar | dsp | mve
  std::string optimize = "speed";       // --optimize: speed | size
  std::string hot_constants = "off";    // --hot-constants: off | auto | REGION
  bool no_float = false;                // --no-float: float fallback ops are an error
  std::string name;  // --name: C name of the model (tf_model_<name>); default from the graph
};
int Compile(const CompileArgs& args);
int CompileForTarget(const CompileArgs& args, const ir::Graph& lowered);
// --passes, --io, --layout as compile and compare take them.
Expected<passes::LowerOptions> MakeLowerOptions(const std::string& pass_list,
                                                const std::string& io, const std::string& layout);

struct CompareArgs {
  std::string graph;        // the graph to check: a lowered .tfg, or one compare lowers
  std::string against;      // pytorch | qdq | float
  std::string reference;    // --reference: the graph `against` runs (default: graph)
  std::string reference_dump;  // --reference-dump: its tensors, dumped earlier (no re-run)
  std::vector<std::string> inputs;
  std::string passes;       // how a non-lowered graph is lowered (as compile)
  std::string io = "int8";
  std::string layout = "NHWC";
  std::string rounding;  // --rounding: override the graph's (single / double)
  // An op diverges when, fed the reference's inputs, more than this share of its output
  // elements is off by more than 1 LSB.
  double tolerance = 0.001;
  bool json = false;
};
int Compare(const CompareArgs& args);

// Shared JSON descriptions (tensor_json.cc).
nlohmann::json QuantJson(const ir::QuantParams& q);
nlohmann::json TensorJson(const ir::Graph& g, ir::TensorId id);
// Compact human summary of quant params: "q(s=0.02, zp=-128)" or
// "q(axis=0 x64, s=[0.0011..0.034], zp=[0..0])".
std::string QuantSummary(const ir::QuantParams& q);
// "int8[1,64,25,5] q(...)".
std::string TypeSummary(const ir::Tensor& t);
// min / max / mean of a tensor's values (NaN-aware: NaNs are counted, not summed).
nlohmann::json ValueSummary(const exec::HostTensor& t);

}  // namespace tinyforge::cli
