// The `tinyforge` command. Subcommands live in their own files (commands.h); this file only
// parses the command line and maps parse errors to exit code 2.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "commands.h"

int main(int argc, char** argv) {
  using namespace tinyforge::cli;
  CLI::App app{
      "tinyforge: PyTorch models to INT8 Cortex-M firmware.\n"
      "Exit codes: 0 ok, 1 failure while running, 2 invalid input."};
  app.set_version_flag("--version", std::string("tinyforge ") + TINYFORGE_VERSION);
  app.require_subcommand(1);

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
                  "Also write every tensor as DIR/NNN_<name>.npy (NNN = tensor index)");
  run->add_flag("--json", run_args.json, "Print a JSON summary");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 reports `tinyforge bogus` as "A subcommand is required"; name the culprit.
    if (argc > 1 && argv[1][0] != '-' && !inspect->parsed() && !run->parsed()) {
      std::cerr << "error: unknown subcommand '" << argv[1] << "' (expected inspect or run)\n"
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
  } catch (const std::exception& e) {
    // Every expected failure is an Expected<T>; reaching this is a bug, reported, not a crash.
    std::cerr << "error: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitInvalidInput;
}
