#include "passes/pipeline.h"

#include <chrono>

#include "ir/verifier.h"

namespace tinyforge::passes {

std::vector<std::string> DefaultPipeline() {
  std::vector<std::string> names;
  for (const PassInfo& p : AllPasses()) names.emplace_back(p.name);
  return names;
}

Expected<std::vector<std::string>> ParsePassList(std::string_view list) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string_view name =
        list.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                           : comma - start);
    if (!name.empty()) {
      if (!FindPass(name)) {
        std::string known;
        for (const PassInfo& p : AllPasses()) {
          known += (known.empty() ? "" : ", ") + std::string(p.name);
        }
        return Error("unknown pass '" + std::string(name) + "' (passes: " + known + ")");
      }
      names.emplace_back(name);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (names.empty()) return Error("empty pass list");
  return names;
}

Expected<std::vector<PassRun>> Lower(ir::Graph& g, const LowerOptions& options) {
  const std::vector<std::string> names =
      options.passes.empty() ? DefaultPipeline() : options.passes;
  TF_RETURN_IF_ERROR(ir::Verify(g));
  std::vector<PassRun> runs;
  for (const std::string& name : names) {
    const PassInfo* pass = FindPass(name);
    if (!pass) return Error("unknown pass '" + name + "'");
    PassRun run{name, 0, g.ops.size(), 0};
    const auto start = std::chrono::steady_clock::now();
    Status s = pass->run(g, options);
    run.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
    if (!s.ok()) return s.error().WithPrefix("pass '" + name + "'");
    run.ops_after = g.ops.size();
    if (options.verify_each) {
      Status v = ir::Verify(g);
      if (!v.ok()) return v.error().WithPrefix("after pass '" + name + "': verifier");
    }
    if (options.after_pass) options.after_pass(run, g);
    runs.push_back(std::move(run));
  }
  Status v = ir::Verify(g);
  if (!v.ok()) return v.error().WithPrefix("after pass '" + names.back() + "': verifier");
  return runs;
}

}  // namespace tinyforge::passes
