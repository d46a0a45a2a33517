// Cost figures of a graph: MACs per op, parameters, bytes of constants and activations.
// Precondition for everything here: the graph is verified.
//
// "Constant-derived" tensors are constants and outputs of ops whose inputs are all
// constant-derived (dequantize of int8 weights, reshape of a constant): the compiler folds
// them, so they count as parameters of the op that consumes them, not as activations.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace tinyforge::ir {

struct OpStats {
  int64_t macs = 0;              // multiply-accumulates per inference (conv2d, linear; else 0)
  int64_t params = 0;            // elements of the op's constant-derived inputs
  int64_t param_bytes = 0;       // bytes of the constants those inputs are computed from
  int64_t output_bytes = 0;      // bytes of the op's outputs
  bool constant_folded = false;  // every input is constant-derived (weight preparation)
};

struct GraphStats {
  std::vector<OpStats> ops;      // one per op, same order
  int64_t macs = 0;              // sum over ops (saturating)
  int64_t params = 0;            // elements of all constants
  int64_t constant_bytes = 0;    // bytes of all constants
  int64_t activation_bytes = 0;  // bytes of all tensors that are not constant-derived
  int64_t largest_activation_bytes = 0;
  TensorId largest_activation = -1;  // -1 if the graph has no activation
};

// MACs of one op: conv2d/qconv2d N*O*Ho*Wo*(C/groups)*kh*kw, qdwconv2d numel(y)*kh*kw;
// linear/qfc numel(y)*in; 0 otherwise.
int64_t OpMacs(const Graph& g, const Op& op);

// One flag per tensor (see the header comment).
std::vector<bool> ConstantDerived(const Graph& g);

GraphStats ComputeStats(const Graph& g);

// The float fallback ops of a graph (unary, binary, cumsum: run in float32, docs/decisions.md
// 42) and their share of the model's cost. An op's cost is its MACs, or its output elements
// for ops without MACs (elementwise work); constant-folded ops cost nothing.
struct FloatShare {
  std::vector<size_t> ops;  // op indices, in graph order
  int64_t cost = 0;         // of those ops
  int64_t total = 0;        // of all ops
  double percent() const { return total > 0 ? 100.0 * static_cast<double>(cost) / total : 0.0; }
};
FloatShare ComputeFloatShare(const Graph& g, const GraphStats& stats);
// "2 of 9 ops run in float32 (3.1% of the cost): op 'm/exp' (exp), op 'm/cumsum' (cumsum)",
// or empty when there are none. The one wording `inspect` and `compile` print.
std::string DescribeFloatShare(const Graph& g, const FloatShare& share);

}  // namespace tinyforge::ir
