// Pass tests: IR text in, IR text out (LLVM-style), on graphs small enough to print whole.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pass.h"
#include "passes/pipeline.h"

namespace tinyforge::testing {

inline ir::PrintOptions WholeGraph() {
  ir::PrintOptions o;
  o.max_inline_constant = 1 << 20;
  return o;
}

// Parses `text` (which must verify), runs the named passes, verifies the result and returns
// its IR text, or "error: <message>".
inline std::string RunPasses(std::string_view text, const std::string& passes,
                             passes::PassOptions options = {}) {
  auto g = ir::ParseGraph(text);
  if (!g.ok()) return "parse error: " + g.error().message();
  Status v = ir::Verify(*g);
  if (!v.ok()) return "input does not verify: " + v.error().message();
  passes::LowerOptions lower;
  static_cast<passes::PassOptions&>(lower) = options;
  auto names = passes::ParsePassList(passes);
  if (!names.ok()) return "error: " + names.error().message();
  lower.passes = *names;
  lower.verify_each = true;
  auto runs = passes::Lower(*g, lower);
  if (!runs.ok()) return "error: " + runs.error().message();
  return ir::PrintGraph(*g, WholeGraph());
}

}  // namespace tinyforge::testing
