// Runs a graph on the host with the reference ops (exec/ref_ops.h): the oracle for the
// compiler's lowered programs and for per-op comparisons with PyTorch.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "exec/host_tensor.h"
#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::exec {

struct RunOptions {
  // Keep every tensor (inputs, constants, intermediates, outputs) in RunResult::tensors.
  // Otherwise intermediates are freed after their last use.
  bool keep_all = false;
  // Largest single tensor the executor will allocate. The verifier admits tensors of up to
  // 2^31-1 elements (8 GiB of float32); a hostile or mistaken file should fail cleanly
  // ("exceeds the executor's limit") rather than exhaust the host's memory.
  int64_t max_tensor_bytes = int64_t{1} << 30;
};

struct RunResult {
  std::vector<HostTensor> outputs;  // one per graph output, in order
  // With keep_all: one per graph tensor, indexed by TensorId (all are set: the graph is
  // verified, so every tensor an op reads or writes is defined; unused tensors stay empty).
  std::vector<std::optional<HostTensor>> tensors;
};

// Checks that `inputs` match the graph's inputs in count, dtype and shape. Error text:
// "input 0 ('x'): shape [1,3] does not match the graph input's [1,4]".
Status CheckInputs(const ir::Graph& g, std::span<const HostTensor> inputs);

// Verifies the graph, checks the inputs, runs every op in order. Errors: the verifier's or
// CheckInputs' message, or "op 'NAME' (#K): ..." if an op cannot run (its output exceeds
// max_tensor_bytes, or the host is out of memory).
Expected<RunResult> Run(const ir::Graph& g, std::span<const HostTensor> inputs,
                        const RunOptions& options = {});

// Runs op `op` of `g` alone, on a graph holding only it: constant inputs come from `g`, the
// others from `values` (one per op input, in order; the entries of constant inputs are not
// read, and `values` may be empty when every input is constant). Returns its first output.
Expected<HostTensor> RunAlone(const ir::Graph& g, const ir::Op& op,
                              std::span<const HostTensor> values);

}  // namespace tinyforge::exec
