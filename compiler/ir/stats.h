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

}  // namespace tinyforge::ir
