// Internal to the emitter: lowered IR ops -> kernel choice, encoded parameters, operands and
// in-place capabilities (encode_ops.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "plan/graph_plan.h"
#include "support/expected.h"
#include "tinyforge/kernel_ids.h"

namespace tinyforge::emit {

// How conv, depthwise and pools may run in place by blocks of output rows (EmitOptions).
enum class StreamMode { kOff, kBudget, kMinRam };

}  // namespace tinyforge::emit

namespace tinyforge::emit::detail {

// An operand slot of an op record.
struct Operand {
  enum Kind : uint8_t { kNone, kActivation, kConstant } kind = kNone;  // kNone: absent, or the
  // scratch slot, filled when the plan gives the op a scratch buffer
  int index = 0;  // activation: plan tensor; constant: index into Encoded::constants
};

struct Constant {
  std::string name;
  uint8_t dtype = 0;  // rt::fmt::DType
  std::vector<uint8_t> bytes;
  int ir_tensor = -1;  // source tensor (dedupe), or -1
};

struct EncodedOp {
  size_t ir_op = 0;
  const rt::KernelInfo* kernel = nullptr;
  std::vector<const char*> paths;     // the kernel's paths linked on demand the op takes
  std::vector<int32_t> params;        // the whole-tensor parameters
  std::vector<int32_t> pixel_params;  // stream option 1 (1x1 conv cut into pixels), or empty
  std::vector<Operand> operands;
  plan::OpSpec spec;  // what the planner sees (tensors: plan indices)
  // Conv / depthwise that may stream by rows (or a pipe_tail ADD): adds the paths of its
  // kernel calls in blocks of k rows to `self` and returns their scratch (a pipe's calls,
  // docs/decisions.md 84); null for other ops.
  std::function<int64_t(EncodedOp& self, int32_t k)> row_calls;
  // An ADD that may end a pipe (docs/decisions.md 99): not streamed alone (it runs in place
  // by aliasing), its spec.stream_options[0] its rows; row_calls returns 0 (no scratch).
  bool pipe_tail = false;
  // The LEAN op flag (program_format.h; docs/decisions.md 98): `lean_offered`, the kernel has
  // a lean form for this op (s8_conv__mve: tables in the bias operand; s8_dwconv__mve:
  // planes of 4 channels); `lean`, the op was encoded in it.
  bool lean_offered = false;
  bool lean = false;
  int64_t lean_bytes = 0;  // constant bytes the lean form adds (s8_conv__mve's tables)
};

struct Encoded {
  std::vector<plan::TensorSpec> tensors;  // activations (roots of reshape views)
  std::vector<int> plan_tensor;           // IR tensor -> plan tensor (-1: constant)
  std::vector<uint8_t> tensor_dtype;      // per plan tensor, rt::fmt::DType
  std::vector<EncodedOp> ops;             // IR order, reshapes left out
  std::vector<Constant> constants;
};

// Kernel variant for `op` on an ISA class ("scalar", "dsp", "mve"): the most specific
// variant the .inc lists have, falling back towards __ref.
const rt::KernelInfo* PickKernel(rt::OpKind op, const std::string& isa_class);

// `stream`: whether conv, depthwise and pools are offered to the planner to run in place by
// blocks of rows / pixels (EmitOptions::stream), calling the kernel on at least
// `stream_pixels` output pixels at a time (0: the mode's figure: StreamMinPixels of the
// kernel's class under kMinRam, StreamBudgetPixels of the variant under kBudget). Aliasing
// is always offered.
// `kernels`: per IR op index, the variant to use instead of PickKernel's (the emitter's
// choice by RAM, docs/decisions.md 58); ops not listed get PickKernel's.
Expected<Encoded> EncodeOps(const ir::Graph& g, const std::string& isa_class, StreamMode stream,
                            int32_t stream_pixels = 0,
                            const std::map<size_t, const rt::KernelInfo*>& kernels = {},
                            bool optimize_size = false, const std::set<size_t>& lean = {});

// --optimize size (docs/decisions.md 59): per op of `e` (encoded with the fastest kernels),
// the portable variant (__ref, the least code) for every op of the lightest operator kinds,
// as long as their work adds up to at most 1/64 of the program's MACs (an op's work: its
// MACs, or 4 per byte of activations it reads where that is more). The other ops keep the fast variant with
// its smallest paths.
std::map<size_t, const rt::KernelInfo*> SizeKernels(const ir::Graph& g, const Encoded& e);

// The other variants of `k`'s operator with k's instruction set (kernels/<family>/*.inc), in
// list order: what the emitter may take instead of k where k's scratch raises the plan's peak.
std::vector<const rt::KernelInfo*> SameIsaVariants(const rt::KernelInfo& k);

// The fewest output pixels per kernel call of a streamed op by default (docs/decisions.md
// 54): 1 for the portable kernels (no per-call setup worth amortizing: the smallest plan),
// more for the fast variants, which pack weights or build per-channel tables per call.
int32_t StreamMinPixels(rt::Isa isa);

// The fewest output pixels per call that keep a streamed op of kernel variant `k` within
// 10 % of its whole-tensor instructions: the TF_KERNEL_STREAM line of the variant's .inc
// (measured by the kernel bench, docs/decisions.md 71); 0: none listed, the op does not
// stream under StreamMode::kBudget.
int32_t StreamBudgetPixels(const rt::KernelInfo& k);

uint8_t ProgramDType(ir::DType d);

}  // namespace tinyforge::emit::detail
