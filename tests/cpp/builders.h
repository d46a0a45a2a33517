// Small graphs built programmatically, shared by the unit tests and the CLI fixtures.
#pragma once

#include <string>
#include <vector>

#include "exec/host_tensor.h"
#include "ir/graph.h"

namespace tinyforge::testing {

ir::Tensor F32(std::string name, ir::Shape shape);
ir::Tensor ConstF32(std::string name, ir::Shape shape, const std::vector<float>& values);
ir::Tensor ConstI8(std::string name, ir::Shape shape, const std::vector<int8_t>& values,
                   ir::QuantParams q);
ir::Tensor ConstI32(std::string name, ir::Shape shape, const std::vector<int32_t>& values,
                    ir::QuantParams q);
// An int8 activation tensor with per-tensor parameters in [-128, 127].
ir::Tensor Q8(std::string name, ir::Shape shape, double scale, int64_t zero_point);

// A PT2E-style QDQ graph (11 tensors, 8 ops):
//   x[1,2,4,4] -quantize-> dequantize -> conv2d(w = dequantize(int8 per-channel),
//   b = dequantize(int32 per-channel), stride 2, padding 1) -> relu ("relu1")
//   -> quantize -> dequantize -> y[1,3,2,2]
// Ops: q_x, dq_x, dq_w, dq_b, conv1 (#4, output tensor 7 "conv_out"), relu1, q_y, dq_y.
ir::Graph QdqConvGraph();

// x[1,1,3,3] -> conv2d(w[1,1,2,2] = [1,0,0,1], b = [0.5]) -> relu -> y[1,1,2,2].
ir::Graph FloatConvGraph();

// A [1,2,4,4] float32 input for QdqConvGraph with values (i % 7) * 0.1 - 0.3.
exec::HostTensor QdqConvInput();

}  // namespace tinyforge::testing
