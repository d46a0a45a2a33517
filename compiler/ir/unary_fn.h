// The float elementwise functions of one input (sigmoid, tanh, hardswish, silu, gelu, elu,
// leaky_relu, ...): the one place that lists them and defines their float32 semantics.
// The host executor runs them (exec/executor.cc); fold-qdq turns each one between a
// dequantize and a quantize into a 256-entry table, `qlut` (passes/fold_qdq_ops.cc,
// docs/numerics.md "Table lookups"). A new activation of this kind is its op_types.def
// line (+ attrs struct if it has parameters) and one case in unary_fn.cc.
#pragma once

#include "ir/attrs.h"
#include "ir/op.h"

namespace tinyforge::ir {

// Whether `type` is one of the functions below.
bool IsUnaryFn(OpType type);

// f(x) for a float32 x, as PyTorch defines the op. Sigmoid and tanh compute in float32 (as
// the executor always has); the others in double, rounded to float32 once.
float EvalUnaryFn(OpType type, const Attrs& attrs, float x);

// Checks the op's attributes (finite constants); empty when valid, else the message.
std::string CheckUnaryFnAttrs(OpType type, const Attrs& attrs);

}  // namespace tinyforge::ir
