// `tinyforge compile m.tfg [--passes=a,b] [--print-after=PASS|all] [--verify-each] [-v]
//                   [--io=int8|float] [--layout=NHWC|NCHW] [-o out.tfg]`:
// lowers a quantized graph to an int8 program (passes::Lower, docs/passes.md) and writes it
// as a graph file of kind int8 that `run`, `inspect` and `compare` accept.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "import/graph_file.h"
#include "ir/printer.h"
#include "ir/stats.h"
#include "load_graph.h"
#include "passes/pipeline.h"

namespace tinyforge::cli {
namespace {

}  // namespace

Expected<passes::LowerOptions> MakeLowerOptions(const std::string& pass_list,
                                                const std::string& io,
                                                const std::string& layout) {
  passes::LowerOptions o;
  if (!pass_list.empty()) {
    TF_ASSIGN_OR_RETURN(o.passes, passes::ParsePassList(pass_list));
  }
  if (io == "float") {
    o.io = passes::IoType::kFloat;
  } else if (io != "int8") {
    return Error("--io: expected int8 or float, got '" + io + "'");
  }
  const auto l = ir::ParseLayout(layout);
  if (!l) return Error("--layout: expected NHWC or NCHW, got '" + layout + "'");
  o.io_layout = *l;
  return o;
}

int Compile(const CompileArgs& args) {
  auto options = MakeLowerOptions(args.passes, args.io, args.layout);
  if (!options.ok()) return Fail(options.error());
  if (!args.print_after.empty() && args.print_after != "all" &&
      !passes::FindPass(args.print_after)) {
    return Fail(Error("--print-after: unknown pass '" + args.print_after + "'"));
  }
  options->verify_each = options->verify_each || args.verify_each;
  options->allow_float = !args.no_float;
  if (!args.memory.empty() && args.target.empty()) {
    return Fail(Error("--memory needs --target CPU (e.g. --target cortex-m7)"));
  }
  auto graph = LoadGraph(args.graph, args.rounding);
  if (!graph.ok()) return Fail(graph.error());

  options->after_pass = [&](const passes::PassRun& run, const ir::Graph& g) {
    if (args.verbose) {
      std::ostringstream line;
      line << "pass " << std::left << std::setw(20) << run.name << std::right << std::fixed
           << std::setprecision(3) << std::setw(9) << run.milliseconds << " ms  "
           << run.ops_before << " -> " << run.ops_after << " ops\n";
      std::cerr << line.str();
    }
    if (args.print_after == "all" || args.print_after == run.name) {
      ir::PrintOptions print;
      print.max_list = 8;  // per-channel scales elided: readable, not parseable
      std::cout << "// ---- after " << run.name << " ----\n" << ir::PrintGraph(g, print);
    }
  };
  auto runs = passes::Lower(*graph, *options);
  // A graph the passes cannot lower (an unsupported op, a float graph) is invalid input;
  // a verifier failure after a pass is a compiler bug (kind internal, passes::Lower).
  if (!runs.ok()) return Fail(runs.error().WithPrefix(args.graph));
  if (args.verbose) {
    double total = 0;
    for (const auto& r : *runs) total += r.milliseconds;
    std::cerr << "total " << std::fixed << std::setprecision(3) << total << " ms, "
              << graph->ops.size() << " ops\n";
  }
  // The float fallback ops, on stderr (stdout may be IR text or JSON).
  const std::string floats =
      ir::DescribeFloatShare(*graph, ir::ComputeFloatShare(*graph, ir::ComputeStats(*graph)));
  if (!floats.empty()) std::cerr << "float: " << floats << "\n";
  if (!args.target.empty()) return CompileForTarget(args, *graph);  // compile_target.cc
  if (!args.output.empty()) {
    Status w = import::WriteGraphFile(*graph, args.output);
    if (!w.ok()) return Fail(w.error());
    if (args.print_after.empty()) {
      std::cout << "wrote " << args.output << ": " << graph->ops.size() << " ops, kind "
                << ir::GraphKindName(graph->kind) << ", layout "
                << ir::LayoutName(graph->layout) << ", io " << ir::LayoutName(graph->io_layout)
                << "\n";
    }
  }
  return kExitOk;
}

}  // namespace tinyforge::cli
