#include "builders.h"

#include <cstring>

namespace tinyforge::testing {
namespace {

template <class T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

}  // namespace

using ir::DType;

ir::Tensor F32(std::string name, ir::Shape shape) {
  ir::Tensor t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  return t;
}

ir::Tensor ConstF32(std::string name, ir::Shape shape, const std::vector<float>& values) {
  ir::Tensor t = F32(std::move(name), std::move(shape));
  t.data = Bytes(values);
  return t;
}

template <typename T>
ir::Tensor ConstQuantized(DType dtype, std::string name, ir::Shape shape,
                          const std::vector<T>& values, ir::QuantParams q) {
  ir::Tensor t = F32(std::move(name), std::move(shape));
  t.dtype = dtype;
  t.quant = std::move(q);
  t.data = Bytes(values);
  return t;
}

ir::Tensor ConstI8(std::string name, ir::Shape shape, const std::vector<int8_t>& values,
                   ir::QuantParams q) {
  return ConstQuantized(DType::kInt8, std::move(name), std::move(shape), values, std::move(q));
}

ir::Tensor ConstI32(std::string name, ir::Shape shape, const std::vector<int32_t>& values,
                    ir::QuantParams q) {
  return ConstQuantized(DType::kInt32, std::move(name), std::move(shape), values, std::move(q));
}

ir::Tensor Q8(std::string name, ir::Shape shape, double scale, int64_t zero_point) {
  ir::Tensor t = F32(std::move(name), std::move(shape));
  t.dtype = DType::kInt8;
  t.quant = ir::PerTensorQuant(scale, zero_point, -128, 127);
  return t;
}

ir::Graph QdqConvGraph() {
  ir::Graph g;
  g.name = "qdq_conv";
  g.kind = ir::GraphKind::kQdq;
  g.producer = "tinyforge tests";
  const double in_scale = 0.05;
  const std::vector<double> w_scales = {0.01, 0.02, 0.03};
  std::vector<int8_t> w(3 * 2 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(static_cast<int>(i % 11) - 5);
  ir::QuantParams wq{w_scales, {0, 0, 0}, 0, -127, 127};
  ir::QuantParams bq{
      {in_scale * 0.01, in_scale * 0.02, in_scale * 0.03}, {0, 0, 0}, 0, INT32_MIN, INT32_MAX};

  g.inputs = {g.AddTensor(F32("x", {1, 2, 4, 4}))};         // 0
  g.AddTensor(Q8("x_q", {1, 2, 4, 4}, in_scale, -3));       // 1
  g.AddTensor(F32("x_dq", {1, 2, 4, 4}));                   // 2
  g.AddTensor(ConstI8("w_q", {3, 2, 3, 3}, w, wq));         // 3
  g.AddTensor(F32("w", {3, 2, 3, 3}));                      // 4
  g.AddTensor(ConstI32("b_q", {3}, {100, -200, 300}, bq));  // 5
  g.AddTensor(F32("b", {3}));                               // 6
  g.AddTensor(F32("conv_out", {1, 3, 2, 2}));               // 7
  g.AddTensor(F32("relu_out", {1, 3, 2, 2}));               // 8
  g.AddTensor(Q8("y_q", {1, 3, 2, 2}, 0.1, -128));          // 9
  g.outputs = {g.AddTensor(F32("y", {1, 3, 2, 2}))};        // 10

  using ir::OpType;
  g.AddOp(ir::MakeOp(OpType::kQuantize, "q_x", {0}, {1}));
  g.AddOp(ir::MakeOp(OpType::kDequantize, "dq_x", {1}, {2}));
  g.AddOp(ir::MakeOp(OpType::kDequantize, "dq_w", {3}, {4}));
  g.AddOp(ir::MakeOp(OpType::kDequantize, "dq_b", {5}, {6}));
  ir::Conv2dAttrs conv;
  conv.stride = {2, 2};
  conv.padding = {1, 1, 1, 1};
  g.AddOp(ir::MakeOp(OpType::kConv2d, "conv1", {2, 4, 6}, {7}, conv));
  g.ops.back().source = "models.py:41";
  g.AddOp(ir::MakeOp(OpType::kRelu, "relu1", {7}, {8}));
  g.AddOp(ir::MakeOp(OpType::kQuantize, "q_y", {8}, {9}));
  g.AddOp(ir::MakeOp(OpType::kDequantize, "dq_y", {9}, {10}));
  return g;
}

ir::Graph FloatConvGraph() {
  ir::Graph g;
  g.name = "float_conv";
  g.inputs = {g.AddTensor(F32("x", {1, 1, 3, 3}))};
  g.AddTensor(ConstF32("w", {1, 1, 2, 2}, {1, 0, 0, 1}));
  g.AddTensor(ConstF32("b", {1}, {0.5f}));
  g.AddTensor(F32("conv_out", {1, 1, 2, 2}));
  g.outputs = {g.AddTensor(F32("y", {1, 1, 2, 2}))};
  g.AddOp(ir::MakeOp(ir::OpType::kConv2d, "conv", {0, 1, 2}, {3}));
  g.AddOp(ir::MakeOp(ir::OpType::kRelu, "relu", {3}, {4}));
  return g;
}

exec::HostTensor QdqConvInput() {
  std::vector<float> v(32);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 7) * 0.1f - 0.3f;
  return exec::HostTensor::Float({1, 2, 4, 4}, v);
}

}  // namespace tinyforge::testing
