// The `tinyforge` command. Subcommands live in their own files (commands.h); this file only
// parses the command line and maps parse errors to exit code 2 (every other exit code comes
// from an Error's kind: Fail and ExitCode in commands.h).
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "commands.h"
#include "support/text.h"

namespace {

// The arguments that name files (not options), for a message about the input as a whole.
std::string InputNames(int argc, char** argv) {
  std::string out;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.empty() || a[0] == '-') continue;
    out += (out.empty() ? "" : ", ") + tinyforge::Quote(a);
  }
  return out.empty() ? "none named" : out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tinyforge::cli;
  CLI::App app{
      "tinyforge: PyTorch models to INT8 Cortex-M firmware.\n"
      "Exit codes: 0 ok, 1 internal error or failed I/O (a bug, a file that cannot be written), "
      "2 invalid or unsupported input (docs/decisions.md)."};
  app.set_version_flag("--version", std::string("tinyforge ") + TINYFORGE_VERSION);
  app.require_subcommand(1);

  OpsArgs ops_args;
  CLI::App* ops = app.add_subcommand(
      "ops", "List the graph-file ops, .tflite builtins and kernel variants this build supports "
             "(docs/ops.md).");
  ops->add_flag("--json", ops_args.json, "Print JSON");

  InspectArgs inspect_args;
  CLI::App* inspect = app.add_subcommand(
      "inspect", "Show a graph file: per op type, shapes, dtypes, quantization, MACs, params.");
  inspect->add_option("graph", inspect_args.graph, "Graph file (.tfg)")->required();
  inspect->add_flag("--json", inspect_args.json, "Print JSON instead of a table");

  RunArgs run_args;
  CLI::App* run = app.add_subcommand(
      "run", "Run a graph file on the host (float32 reference ops) on .npy inputs.");
  run->add_option("graph", run_args.graph, "Graph file (.tfg)")->required();
  run->add_option("-i,--input", run_args.inputs,
                  "Input .npy (float32 '<f4', int8 '|i1' or int32 '<i4'), once per graph "
                  "input, in order")
      ->allow_extra_args(false);
  run->add_option("-o,--output", run_args.outputs,
                  "Output .npy to write, once per graph output, in order (optional)")
      ->allow_extra_args(false);
  run->add_option("--dump-dir", run_args.dump_dir,
                  "Also write every tensor as DIR/NNN_<name>.npy (NNN = tensor index); "
                  "through the runtime (program.bin): every arena after each op K as "
                  "DIR/KKK_<arena>.bin (docs/boards.md)");
  run->add_flag("--json", run_args.json, "Print a JSON summary");
  run->add_flag("--runtime", run_args.runtime,
                "Run through the device runtime: compile for --target in memory, execute the "
                "program (a program.bin given as the file always runs this way)");
  run->add_option("--target", run_args.target, "With --runtime: board or CPU (default cortex-m55)");
  run->add_option("--steps", run_args.steps,
                  "Through the runtime: run N calls in one session, each input (but the "
                  "state inputs of a streaming model) holding N calls stacked first; outputs "
                  "are written stacked the same way (docs/program-format.md, STATE)");
  run->add_option("--reset-every", run_args.reset_every,
                  "With --steps: reset the model's state before every K-th call");
  const char* rounding_help =
      "Requantization rounding of the int8 ops: single (PyTorch's; default for .tfg) or double "
      "(TFLite Micro's; default for .tflite) (docs/numerics.md)";
  run->add_option("--rounding", run_args.rounding, rounding_help);

  CompileArgs compile_args;
  CLI::App* compile = app.add_subcommand(
      "compile", "Lower a quantized graph to an int8 program (docs/passes.md).");
  compile->add_option("graph", compile_args.graph, "Graph file (.tfg, kind qdq)")->required();
  compile->add_option("-o,--output", compile_args.output, "Write the lowered graph file (.tfg)");
  compile->add_option("--passes", compile_args.passes,
                      "Comma-separated passes to run instead of the default pipeline");
  compile->add_option("--print-after", compile_args.print_after,
                      "Print the IR after PASS (or after every pass: all)");
  compile->add_flag("--verify-each", compile_args.verify_each,
                    "Run the verifier after every pass (always on in debug builds)");
  compile->add_flag("-v,--verbose", compile_args.verbose, "Print the time of each pass");
  compile->add_option("--io", compile_args.io, "Program input/output type: int8 (default) or float");
  compile->add_option("--layout", compile_args.layout,
                      "Program input/output layout: NHWC (default) or NCHW");
  compile->add_option("--target", compile_args.target,
                      "Plan memory and emit a program for a board (an547, stm32h743, ...), "
                      "a board description file (board.json), or a CPU (cortex-m55, ...); -o "
                      "is then a directory: program.bin, model.h, model.cc, report.json");
  compile->add_option("--memory", compile_args.memory,
                      "With --target CPU: the board's memory as "
                      "name:size@address[:speed_rank][:ram|rom|code],... "
                      "(e.g. sram:320K@0x20000000:0,flash:1M@0x08000000; docs/boards.md)");
  compile->add_option("--place", compile_args.place,
                      "With --target: put TENSOR's buffer in a RAM region (TENSOR=REGION)")
      ->allow_extra_args(false);
  compile->add_option("--weights-in", compile_args.weights_in,
                      "With --target: put OP's constants in a code/ROM region (OP=REGION)")
      ->allow_extra_args(false);
  compile->add_flag("--no-float", compile_args.no_float,
                    "Fail (exit 2) listing every op that would run in float32 instead of int8");
  compile->add_flag("--json", compile_args.json, "With --target: print the plan as JSON");
  compile->add_option("--rounding", compile_args.rounding, rounding_help);
  auto* min_ram = compile->add_flag(
      "--min-ram", compile_args.min_ram,
      "With --target: RAM over speed: run convolutions and pools in place by blocks of "
      "output rows through small line buffers: the least RAM, a kernel call per block "
      "(--kernels ref: per row, the smallest plan), and at the peak a kernel variant with "
      "less scratch (docs/decisions.md 58). Default: in place by blocks only as finely as "
      "keeps each op within 10 % of its whole-tensor instructions (decision 71)");
  compile->add_flag("--no-pipes", compile_args.no_pipes,
                    "With --min-ram: no pipes. By default --min-ram runs chains of "
                    "convolutions and depthwise convolutions interleaved by rows where that "
                    "lowers the plan, so the tensors between them exist only as windows of "
                    "rows (patch-based execution; docs/decisions.md 84)")
      ->needs(min_ram);
  compile->add_flag("--speed-over-ram", compile_args.speed_over_ram,
                    "With --target: whole-tensor kernel calls only (no op runs in place by "
                    "rows; the most RAM)")
      ->excludes(min_ram);
  compile->add_option("--stream-pixels", compile_args.stream_pixels,
                      "With --target: the fewest output pixels per kernel call of a streamed "
                      "op (default: with --min-ram 1 for the portable kernels, 16 for the fast "
                      "ones; otherwise each variant's listed figure; docs/decisions.md 54, 71)")
      ->check(CLI::Range(1, 1 << 20));
  compile->add_option("--name", compile_args.name,
                      "With --target: the model's C name in model.h/model.cc (tf_model_NAME; "
                      "default: from the graph's name)");
  compile->add_option("--kernels", compile_args.kernels,
                      "With --target: kernel variants, auto (the board's fastest: mve, dsp or "
                      "scalar) or ref / scalar / dsp / mve (up to what the board runs)");
  compile->add_option("--optimize", compile_args.optimize,
                      "With --target: speed (default: the fastest kernels) or size (the least "
                      "kernel code: portable kernels for ops doing little of the work, the "
                      "smallest fast paths for the rest; docs/decisions.md 59)");
  compile->add_option("--hot-constants", compile_args.hot_constants,
                      "With --target: off (default), auto or a RAM region: copy the hottest "
                      "constants (MACs per byte) into the fastest RAM region's room left by "
                      "the activations at init (docs/memory-planning.md)");

  CompareArgs compare_args;
  CLI::App* compare = app.add_subcommand(
      "compare", "Run a lowered program and a reference side by side, per op (docs/numerics.md).");
  compare->add_option("graph", compare_args.graph,
                      "Program (.tfg of kind int8), or a qdq graph to lower first")
      ->required();
  compare->add_option("--against", compare_args.against, "pytorch, qdq or float")->required();
  compare->add_option("--reference", compare_args.reference,
                      "Graph the reference runs (default: the graph itself when not lowered)");
  compare->add_option("--reference-dump", compare_args.reference_dump,
                      "Use the reference's tensors dumped earlier (tinyforge.interp or "
                      "run --dump-dir) instead of running it");
  compare->add_option("-i,--input", compare_args.inputs, "Reference input .npy, once per input")
      ->allow_extra_args(false);
  compare->add_option("--passes", compare_args.passes, "Passes to lower with (as compile)");
  compare->add_option("--io", compare_args.io, "As compile --io");
  compare->add_option("--layout", compare_args.layout, "As compile --layout");
  compare->add_option("--rounding", compare_args.rounding, rounding_help);
  compare->add_option("--tolerance", compare_args.tolerance,
                      "An op diverges when, fed the reference's inputs, more than this share of "
                      "its elements is off by more than 1 LSB (default 0.001)");
  compare->add_flag("--json", compare_args.json, "Print JSON");

  // Help text only: `run --board`, `profile`, `report` and `explore` go to their Python
  // driver before parsing.
  std::string board_help;
  run->add_option("--board", board_help,
                  "Run on an emulated board (an385, an386, an505, an547, or a CPU such as "
                  "cortex-m4): compile, build firmware, run under QEMU, check bit-exact against "
                  "the host runtime (docs/boards.md; `tinyforge run m --board B --help`)");
  CLI::App* profile = app.add_subcommand(
      "profile",
      "Per-op instructions, stack, RAM and flash of a model on an emulated board "
      "(docs/boards.md; `tinyforge profile --help`)");
  profile->allow_extras();
  profile->set_help_flag();
  CLI::App* report = app.add_subcommand(
      "report",
      "One self-contained HTML page of a compiled model: op table, memory plan per region, "
      "per-op cost bars, flash split (docs/boards.md; `tinyforge report --help`)");
  report->allow_extras();
  report->set_help_flag();
  CLI::App* explore = app.add_subcommand(
      "explore",
      "Open a model (.tfg, .tflite, a compiled directory) in Model Explorer: ops, shapes, "
      "quantization, kernels, per-op profile overlays (docs/boards.md; needs "
      "`pip install tinyforge[explorer]`; `tinyforge explore --help`)");
  explore->allow_extras();
  explore->set_help_flag();
  if (const auto driver = WantsPythonDriver(argc, argv)) {
    return RunPythonDriver(*driver, argc, argv);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 reports `tinyforge bogus` as "A subcommand is required"; name the culprit.
    if (argc > 1 && argv[1][0] != '-' && !inspect->parsed() && !run->parsed() &&
        !compile->parsed() && !compare->parsed() && !profile->parsed() && !report->parsed() &&
        !explore->parsed() && !ops->parsed()) {
      std::cerr << "error: unknown subcommand '" << argv[1]
                << "' (expected inspect, run, compile, compare, profile, report, explore or ops)\n"
                << "Run with --help for more information.\n";
      return kExitInvalidInput;
    }
    // Help and --version are "errors" with exit code 0 in CLI11.
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitInvalidInput;
  }
  try {
    if (inspect->parsed()) return Inspect(inspect_args);
    if (run->parsed()) return Run(run_args);
    if (compile->parsed()) return Compile(compile_args);
    if (compare->parsed()) return Compare(compare_args);
    if (ops->parsed()) return Ops(ops_args);
  } catch (const std::bad_alloc&) {
    // Memory ran out: an input (graph, .npy, program) asks for more than this machine has.
    // The readers bound what they allocate; this is the last line for what they missed.
    return Fail(tinyforge::Error("out of memory: an input (" + InputNames(argc, argv) +
                      ") needs more memory than is available; give a smaller one"));
  } catch (const std::exception& e) {
    // Every expected failure is an Expected<T>; reaching this is a bug, reported, not a crash.
    return Fail(tinyforge::Error::Internal(e.what()));
  }
  return kExitInvalidInput;
}
