// Executes the ops of lowered (int8) graphs with the int8 reference kernels (kernels/*
// `__ref`), with parameters from quant/op_params.h. Ops in NCHW layout (between fold-qdq
// and the layout pass) run the same NHWC kernels on transposed copies of their data, so
// every stage of the pipeline computes exactly what the final program computes.
#pragma once

#include <span>

#include "exec/host_tensor.h"
#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::exec {

// Precondition: `op` is an op of the verified graph `g` and IsLoweredOp(op.type); `in` holds
// its input values and `y` is allocated with its output's dtype and shape. In a graph of
// kind int8, quantize/dequantize run as TFLite Micro's QUANTIZE/DEQUANTIZE kernels.
Status RunLoweredOp(const ir::Graph& g, const ir::Op& op, std::span<const HostTensor* const> in,
                    HostTensor& y);

}  // namespace tinyforge::exec
