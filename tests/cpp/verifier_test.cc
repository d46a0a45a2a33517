// The verifier: each invariant broken once, with the exact diagnostic it must produce.
#include <gtest/gtest.h>

#include "builders.h"
#include "ir/parser.h"
#include "ir/verifier.h"

namespace tinyforge::ir {
namespace {

std::string VerifyMessage(const Graph& g) {
  Status s = Verify(g);
  return s.ok() ? "ok" : s.error().message();
}

// Parses IR text (must parse) and returns the verifier's verdict.
std::string VerifyText(const std::string& text) {
  auto g = ParseGraph(text);
  EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().message());
  return g.ok() ? VerifyMessage(*g) : "parse error";
}

TEST(Verifier, AcceptsValidGraphs) {
  EXPECT_EQ(VerifyMessage(testing::QdqConvGraph()), "ok");
  EXPECT_EQ(VerifyMessage(testing::FloatConvGraph()), "ok");
  EXPECT_EQ(VerifyText("graph empty kind=float\n  output\n"), "ok");
}

TEST(Verifier, TopologicalOrder) {
  Graph g = testing::FloatConvGraph();
  std::swap(g.ops[0], g.ops[1]);
  EXPECT_EQ(VerifyMessage(g),
            "op 'relu' (#0): inputs[0]: tensor 'conv_out' (#3) is used before it is produced "
            "(ops must be in topological order)");
}

TEST(Verifier, SingleProducerAndConstantsNotProduced) {
  Graph g = testing::FloatConvGraph();
  g.ops[1].outputs = {3};  // relu writes conv's output again
  EXPECT_EQ(VerifyMessage(g),
            "op 'relu' (#1): outputs[0]: tensor 'conv_out' (#3) is already produced by an "
            "earlier op or output; it cannot be produced here");
  g = testing::FloatConvGraph();
  g.ops[1].outputs = {1};  // relu writes the weights
  EXPECT_EQ(VerifyMessage(g),
            "op 'relu' (#1): outputs[0]: tensor 'w' (#1) is a constant; it cannot be produced "
            "here");
  g = testing::FloatConvGraph();
  g.inputs = {0, 3};  // conv's output declared a graph input
  EXPECT_NE(VerifyMessage(g).find("is a graph input"), std::string::npos);
  g = testing::FloatConvGraph();
  g.inputs = {1};
  EXPECT_EQ(VerifyMessage(g),
            "graph: inputs[0]: tensor 'w' (#1) is a constant; a graph input cannot have data");
}

TEST(Verifier, IndicesInRange) {
  Graph g = testing::FloatConvGraph();
  g.ops[0].inputs[1] = 7;
  EXPECT_EQ(VerifyMessage(g), "op 'conv' (#0): inputs[1]: tensor index 7 out of range (5 tensors)");
  g = testing::FloatConvGraph();
  g.outputs = {5};
  EXPECT_EQ(VerifyMessage(g), "graph: outputs[0]: tensor index 5 out of range (5 tensors)");
  g = testing::FloatConvGraph();
  g.ops[1].outputs = {-2};
  EXPECT_NE(VerifyMessage(g).find("outputs[0]: tensor index -2"), std::string::npos);
}

TEST(Verifier, CountsDTypesAndAttrs) {
  Graph g = testing::FloatConvGraph();
  g.ops[1].inputs = {3, 3};
  EXPECT_EQ(VerifyMessage(g), "op 'relu' (#1): inputs: relu takes 1 inputs, got 2");
  g = testing::FloatConvGraph();
  g.ops[0].attrs = NoAttrs{};
  EXPECT_EQ(VerifyMessage(g), "op 'conv' (#0): attrs: do not belong to op type conv2d");
  g = testing::QdqConvGraph();
  g.ops[4].inputs[1] = 3;  // int8 weights straight into conv2d
  EXPECT_EQ(VerifyMessage(g), "op 'conv1' (#4): inputs[1]: int8[3,2,3,3] 'w_q' must be float32");
  // float32 weights into dequantize.
  EXPECT_EQ(VerifyText("graph t kind=float\n"
                       "  const %0 w: float32[2] = [1,2]\n"
                       "  %1 y: float32[2] = dequantize(%0)  # dq_w\n"
                       "  output %1\n"),
            "op 'dq_w' (#0): inputs[0]: float32[2] 'w' must be int8 or int32 (with quant)");
  EXPECT_EQ(VerifyText("graph t kind=qdq\n"
                       "  input %0 x: float32[2]\n"
                       "  %1 y: float32[2] = quantize(%0)  # q\n"
                       "  output %1\n"),
            "op 'q' (#0): outputs[0]: float32[2] 'y' must be int8 or int32");
}

TEST(Verifier, ShapesMatchInference) {
  Graph g = testing::QdqConvGraph();
  g.tensor(7).shape = {1, 3, 3, 2};
  g.tensor(8).shape = {1, 3, 3, 2};
  EXPECT_EQ(VerifyMessage(g),
            "op 'conv1' (#4): outputs[0]: shape [1,3,3,2] of 'conv_out' does not match inferred "
            "[1,3,2,2]");
}

TEST(Verifier, TensorsAndNames) {
  Graph g = testing::FloatConvGraph();
  g.tensor(2).name = "w";
  EXPECT_EQ(VerifyMessage(g), "tensor 'w' (#2): name: duplicate tensor name");
  g = testing::FloatConvGraph();
  g.ops[1].name = "conv";
  EXPECT_EQ(VerifyMessage(g), "op 'conv' (#1): name: duplicate op name");
  g = testing::FloatConvGraph();
  g.tensor(1).data->pop_back();
  EXPECT_EQ(VerifyMessage(g), "tensor 'w' (#1): data: 15 bytes, expected 16 (4 x float32)");
  g = testing::FloatConvGraph();
  g.tensor(0).shape = {1, 0, 3, 3};
  EXPECT_NE(VerifyMessage(g).find("tensor 'x' (#0): shape: [1,0,3,3] must have"),
            std::string::npos);
  g = testing::QdqConvGraph();
  g.tensor(1).quant.reset();
  EXPECT_EQ(VerifyMessage(g), "tensor 'x_q' (#1): quant: required for int8 tensors");
  g = testing::QdqConvGraph();
  g.tensor(1).quant->scale[0] = 0.0;
  EXPECT_EQ(VerifyMessage(g), "tensor 'x_q' (#1): quant.scale[0]: must be finite and > 0, got 0");
  g = testing::QdqConvGraph();
  g.kind = GraphKind::kFloat;
  EXPECT_NE(VerifyMessage(g).find("tensor 'x_q' (#1): dtype: int8 in a graph of kind \"float\""),
            std::string::npos);
}

TEST(Verifier, OutputsMustBeDefined) {
  EXPECT_EQ(VerifyText("graph t kind=float\n"
                       "  input %0 x: float32[2]\n"
                       "  tensor %1 dangling: float32[2]\n"
                       "  output %1\n"),
            "graph: outputs[0]: tensor 'dangling' (#1) is never produced");
  EXPECT_EQ(VerifyText("graph t kind=float\n"
                       "  input %0 x: float32[2]\n"
                       "  output %0, %0\n"),
            "graph: outputs[1]: tensor #0 listed twice");
}

TEST(Verifier, DataMovementKeepsDTypeAndQuant) {
  const std::string ok =
      "graph t kind=qdq\n"
      "  input %0 x: int8[1,4] q(s=0.5, zp=1)\n"
      "  %1 y: int8[4] q(s=0.5, zp=1) = reshape(%0) {shape=[4]}  # r\n"
      "  %2 z: int8[8] q(s=0.5, zp=1) = cat(%1, %1) {axis=0}  # c\n"
      "  output %2\n";
  EXPECT_EQ(VerifyText(ok), "ok");
  std::string bad = ok;
  bad.replace(bad.find("int8[4] q(s=0.5, zp=1)"), 22, "int8[4] q(s=0.25, zp=1)");
  EXPECT_EQ(VerifyText(bad),
            "op 'r' (#0): inputs[0]: int8[1,4] 'x' must have the output's dtype and "
            "quantization (int8)");
}

}  // namespace
}  // namespace tinyforge::ir
