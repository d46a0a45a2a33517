#include "passes/pipeline.h"

#include <chrono>

#include "ir/verifier.h"

namespace tinyforge::passes {

// The default pipeline. Each line says what must come before it.
std::vector<std::string> DefaultPipeline() {
  return {
      // Weights that PT2E left as float constants behind a quantize become int8 constants,
      // so fold-qdq sees one pattern whatever convert_pt2e's fold_quantize setting was.
      // (dequantize of a constant is deliberately not folded: it marks quantized weights.)
      "const-fold",
      // Needs the constants folded. Every float op is replaced by its int8 twin (NCHW) with
      // the quant params of the quantize it fed; activations become requantize clamps.
      "fold-qdq",
      // After fold-qdq, the only quantize/dequantize left are the graph's edges.
      "io-edges",
      // Needs fold-qdq's requantize clamps; before compute-multipliers, so that clamps it
      // removes never get constants.
      "fuse-activation",
      // Needs lowered ops (only they carry a layout). Before remove-noops: the transposes
      // it wraps around reshapes and edges are mostly views that remove-noops resolves.
      "layout",
      // After layout (see above) and fuse-activation (it removes identity requantize ops
      // the fusions leave).
      "remove-noops",
      // After every pass that adds or removes rescaling ops, so each surviving op gets
      // exactly its constants. From here on no kernel parameter needs a float.
      "compute-multipliers",
      // Needs final weights (layout) and zero points; changes the bias, so it comes after
      // everything that reads the bias as the model's bias.
      "precompute-bias",
      // Last: removes what the others orphaned (dead dequantize ops, unused constants).
      "dce",
  };
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
    TF_RETURN_IF_ERROR_PREFIX(s, "pass '" + name + "'");
    run.ops_after = g.ops.size();
    if (options.verify_each) {
      Status v = ir::Verify(g);  // a pass that breaks the IR is a compiler bug
      if (!v.ok()) {
        return v.error().WithKind(ErrorKind::kInternal).WithPrefix("after pass '" + name +
                                                                   "': verifier");
      }
    }
    if (options.after_pass) options.after_pass(run, g);
    runs.push_back(std::move(run));
  }
  Status v = ir::Verify(g);
  if (!v.ok()) {
    return v.error().WithKind(ErrorKind::kInternal).WithPrefix("after pass '" + names.back() +
                                                               "': verifier");
  }
  return runs;
}

}  // namespace tinyforge::passes
