// Lowering passes: each rewrites an ir::Graph in place and leaves it verified-valid
// (docs/passes.md says what each one guarantees and why it sits where it does). Passes are
// registered by name in one list (registry.cc) so a pipeline is text: "fold-qdq,layout".
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::passes {

// Element type of the lowered program's inputs and outputs (`tinyforge compile --io`).
enum class IoType : uint8_t { kInt8, kFloat };

// What the user asks of the program; passes that do not care ignore it.
struct PassOptions {
  IoType io = IoType::kInt8;                  // io-edges
  ir::Layout io_layout = ir::Layout::kNHWC;  // layout: the model's input/output layout
  // fold-qdq: false (`compile --no-float`) turns every float fallback op (an op with no int8
  // lowering, run in float32 between dequantize and quantize) into one error listing them.
  bool allow_float = true;
};

// A pass: rewrites `g`; on error `g` may be half rewritten (callers discard it). Errors
// name the op: "op 'pool' (#12): avg_pool2d with count_include_pad ...".
using PassFn = Status (*)(ir::Graph& g, const PassOptions& options);

// Why float fallback op `op` (unary / binary / cumsum) runs in float32 (--no-float's list).
std::string FloatFallbackReason(const ir::Op& op);

struct PassInfo {
  std::string_view name;        // "fold-qdq"
  PassFn run;
  std::string_view guarantees;  // what holds after it (docs/passes.md's table)
  std::string_view why_here;    // why it sits where it does in the pipeline
};

// Every registered pass, in default-pipeline order (registry.cc: the one list, with the
// reason for each position).
std::span<const PassInfo> AllPasses();
// nullptr if no pass has that name.
const PassInfo* FindPass(std::string_view name);

// The passes (one .cc each).
Status ConstFold(ir::Graph& g, const PassOptions& options);
// fold-float: a float graph's ops -> float32 lowered ops (fconv2d, ffc, ...; decision 52).
Status FoldFloat(ir::Graph& g, const PassOptions& options);
Status FoldQdq(ir::Graph& g, const PassOptions& options);
Status IoEdges(ir::Graph& g, const PassOptions& options);
Status FuseActivation(ir::Graph& g, const PassOptions& options);
Status ToNhwc(ir::Graph& g, const PassOptions& options);
// The layout pass's first step (lift_1d.cc): rank-3 activations between Conv1d layers
// become [N, C, 1, L] where that saves transposes.
Status Lift1d(ir::Graph& g);
Status SplitGroups(ir::Graph& g, const PassOptions& options);
Status RemoveNoops(ir::Graph& g, const PassOptions& options);
Status FoldPad(ir::Graph& g, const PassOptions& options);
Status SplitOutputs(ir::Graph& g, const PassOptions& options);  // in split_groups.cc
Status SplitConcat(ir::Graph& g, const PassOptions& options);
Status ComputeMultipliers(ir::Graph& g, const PassOptions& options);
Status PrecomputeBias(ir::Graph& g, const PassOptions& options);
Status Dce(ir::Graph& g, const PassOptions& options);

}  // namespace tinyforge::passes
