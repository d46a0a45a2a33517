// Internal to ir/: shape inference of the lowered int8 ops (shape_inference_lowered.cc) and
// their dtype rules (verifier_lowered.cc), split from the v1 files to keep each small.
#pragma once

#include <span>
#include <vector>

#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::ir::internal {

// Precondition: `type` is in the lowered block of op_types.def, `attrs` matches it and the
// input count is within the .def's bounds.
Expected<std::vector<Shape>> InferLoweredShapes(OpType type, const Attrs& attrs,
                                                std::span<const Shape> in);

// NumPy broadcasting of two shapes (the binary elementwise ops, float and lowered).
Expected<Shape> Broadcast(const Shape& a, const Shape& b);

// Dtype and quantization rules of a lowered op (int8 per-tensor activations, symmetric
// weights, raw int32 multiplier/shift, fixed output parameters of softmax/logistic/tanh).
Status CheckLoweredDTypes(const Graph& g, const Op& op);

// Graph-kind rules: which ops and float tensors a graph of g.kind may hold, and that
// spatial ops agree with g.layout. Error text "op 'NAME' (#K): ..." or "graph: ...".
Status CheckGraphKind(const Graph& g);

}  // namespace tinyforge::ir::internal
