// The executor on whole graphs: outputs, intermediates, input checking.
#include <gtest/gtest.h>

#include "builders.h"
#include "exec/executor.h"

namespace tinyforge::exec {
namespace {

TEST(Executor, FloatConvGraphByHand) {
  // conv with w = [[1,0],[0,1]], b = 0.5 on [[-9,2,3],[4,-5,6],[7,8,-9]]:
  // [-9-5, 2+6, 4+8, -5-9] + 0.5 = [-13.5, 8.5, 12.5, -13.5]; relu -> [0, 8.5, 12.5, 0].
  const ir::Graph g = testing::FloatConvGraph();
  const HostTensor x = HostTensor::Float({1, 1, 3, 3}, {-9, 2, 3, 4, -5, 6, 7, 8, -9});
  RunOptions keep;
  keep.keep_all = true;
  auto r = exec::Run(g, std::span(&x, 1), keep);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(std::vector<float>(r->outputs[0].f32().begin(), r->outputs[0].f32().end()),
            (std::vector<float>{0, 8.5f, 12.5f, 0}));
  ASSERT_EQ(r->tensors.size(), g.tensors.size());
  const HostTensor& conv = *r->tensors[3];
  EXPECT_EQ(std::vector<float>(conv.f32().begin(), conv.f32().end()),
            (std::vector<float>{-13.5f, 8.5f, 12.5f, -13.5f}));
  EXPECT_TRUE(r->tensors[1].has_value());  // constants are kept too
  auto lean = exec::Run(g, std::span(&x, 1));
  ASSERT_TRUE(lean.ok());
  EXPECT_TRUE(lean->tensors.empty());
  EXPECT_TRUE(lean->outputs[0].BitEqual(r->outputs[0]));
}

TEST(Executor, QdqGraphRoundTripsThroughInt8) {
  // Only a smoke test of the wiring; numerics are covered op by op. The output is a
  // dequantized int8 with scale 0.1 and zero point -128: every value is k * 0.1f, k >= 0.
  const ir::Graph g = testing::QdqConvGraph();
  const HostTensor x = testing::QdqConvInput();
  RunOptions keep;
  keep.keep_all = true;
  auto r = exec::Run(g, std::span(&x, 1), keep);
  ASSERT_TRUE(r.ok()) << r.error().message();
  const HostTensor& xq = *r->tensors[1];
  ASSERT_EQ(xq.dtype(), ir::DType::kInt8);
  // x[0] = -0.3: -0.3f * 20 = -6 -> -6 + (-3) = -9.
  EXPECT_EQ(xq.i8()[0], -9);
  const HostTensor& yq = *r->tensors[9];
  for (size_t i = 0; i < 12; ++i) {
    EXPECT_EQ(r->outputs[0].f32()[i], (static_cast<float>(yq.i8()[i]) - (-128.0f)) * 0.1f);
  }
}

TEST(Executor, RejectsWrongInputs) {
  const ir::Graph g = testing::FloatConvGraph();
  const HostTensor wrong_shape = HostTensor::Float({1, 1, 3, 2}, std::vector<float>(6, 0));
  auto r = exec::Run(g, std::span(&wrong_shape, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "input 0 ('x'): shape [1,1,3,2] does not match the graph input's [1,1,3,3]");
  const HostTensor wrong_dtype(ir::DType::kInt8, {1, 1, 3, 3});
  EXPECT_EQ(CheckInputs(g, std::span(&wrong_dtype, 1)).error().message(),
            "input 0 ('x'): dtype int8 does not match the graph input's float32");
  EXPECT_EQ(CheckInputs(g, {}).error().message(), "the graph has 1 input(s), got 0");
}

TEST(Executor, RefusesInvalidGraphs) {
  ir::Graph g = testing::FloatConvGraph();
  g.ops[0].inputs[1] = 9;
  const HostTensor x(ir::DType::kFloat32, {1, 1, 3, 3});
  auto r = exec::Run(g, std::span(&x, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("out of range"), std::string::npos);
}

TEST(Executor, RefusesTensorsOverTheMemoryLimit) {
  const ir::Graph g = testing::FloatConvGraph();
  const HostTensor x(ir::DType::kFloat32, {1, 1, 3, 3});
  RunOptions small;
  small.max_tensor_bytes = 8;  // conv_out is 4 floats = 16 bytes
  auto r = exec::Run(g, std::span(&x, 1), small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "op 'conv' (#0): output 'conv_out' of 16 bytes exceeds the executor's limit of 8");
}

TEST(Executor, GraphOutputThatIsAlsoConsumedSurvives) {
  // y = relu(x) is both a graph output and the input of a later op: not freed early.
  ir::Graph g;
  g.inputs = {g.AddTensor(testing::F32("x", {2}))};
  g.AddTensor(testing::F32("y", {2}));
  g.AddTensor(testing::F32("z", {2}));
  g.outputs = {1, 2};
  g.AddOp(ir::MakeOp(ir::OpType::kRelu, "r", {0}, {1}));
  g.AddOp(ir::MakeOp(ir::OpType::kAdd, "a", {1, 1}, {2}));
  const HostTensor x = HostTensor::Float({2}, {-1, 2});
  auto r = exec::Run(g, std::span(&x, 1));
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->outputs[0].f32()[1], 2.0f);
  EXPECT_EQ(r->outputs[1].f32()[1], 4.0f);
  EXPECT_EQ(r->outputs[1].f32()[0], 0.0f);
}

}  // namespace
}  // namespace tinyforge::exec
