// The lowering pipeline: `passes::Lower(graph, options)` takes a verified qdq graph (from
// the PyTorch exporter) to a lowered int8 program (docs/lowered-ops.md), running the
// default pipeline or the passes the caller names, verifying between passes when asked.
// `tinyforge compile` is a thin wrapper; program emission calls Lower and continues.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "passes/pass.h"

namespace tinyforge::passes {

// Pass names of the default pipeline: every pass of registry.cc, in its order (the list
// says why each pass sits where it does).
std::vector<std::string> DefaultPipeline();

// One executed pass, reported to LowerOptions::after_pass.
struct PassRun {
  std::string name;
  double milliseconds = 0;
  size_t ops_before = 0, ops_after = 0;
};

struct LowerOptions : PassOptions {
  // Pass names to run in order; empty = DefaultPipeline(). Unknown names are an error.
  std::vector<std::string> passes;
#ifdef NDEBUG
  bool verify_each = false;  // release builds: on request (--verify-each)
#else
  bool verify_each = true;  // debug builds: always
#endif
  // Called after each pass with the rewritten graph (--print-after, -v timings).
  std::function<void(const PassRun&, const ir::Graph&)> after_pass;
};

// Runs the pipeline on `g` in place. The result is always verified (the last step), and
// after every pass when verify_each. Errors: "pass 'NAME': ..." (a pass failed, with its
// diagnostic naming the op) or "after pass 'NAME': <verifier message>" (a pass broke an
// invariant: a compiler bug, reported with the pass that caused it).
Expected<std::vector<PassRun>> Lower(ir::Graph& g, const LowerOptions& options);

// Splits "a,b,c" into names and checks each is registered.
Expected<std::vector<std::string>> ParsePassList(std::string_view list);

}  // namespace tinyforge::passes
