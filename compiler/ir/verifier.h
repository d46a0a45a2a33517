// The IR verifier: checks every invariant listed in ir/graph.h and returns the first
// violation as one line, never throws and never reads out of range, whatever the graph
// holds. It runs after import and between passes.
//
// Error text: "tensor 'NAME' (#K): FIELD: what", "op 'NAME' (#K): FIELD: what" or
// "graph: FIELD: what", e.g.
//   op 'conv1' (#3): outputs[0]: shape [1,64,25,5] does not match inferred [1,64,24,5]
#pragma once

#include <string>

#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::ir {

Status Verify(const Graph& g);

// Checks one tensor on its own (name, shape, dtype vs quant, constant size). Errors are
// "FIELD: what", without the tensor label.
Status VerifyTensor(const Tensor& t);

// "tensor 'x' (#0)" / "op 'conv1' (#3)": the subjects of diagnostics.
std::string TensorLabel(const Graph& g, TensorId id);
std::string OpLabel(const Graph& g, size_t op_index);

}  // namespace tinyforge::ir
