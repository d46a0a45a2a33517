// IR basics: dtype and op-type tables, quant validation, printer, stats, graph utilities.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "builders.h"
#include "ir/printer.h"
#include "ir/stats.h"
#include "ir/verifier.h"
#include "support/text.h"

namespace tinyforge::ir {
namespace {

using testing::F32;

TEST(DType, NamesRoundTripAndSizes) {
  for (DType t : {DType::kFloat32, DType::kInt8, DType::kInt32}) {
    EXPECT_EQ(ParseDType(DTypeName(t)), t);
  }
  EXPECT_FALSE(ParseDType("float64").has_value());
  EXPECT_FALSE(ParseDType("").has_value());
  EXPECT_EQ(DTypeSize(DType::kFloat32), 4);
  EXPECT_EQ(DTypeSize(DType::kInt8), 1);
  EXPECT_EQ(DTypeSize(DType::kInt32), 4);
  EXPECT_EQ(DTypeMin(DType::kInt8), -128);
  EXPECT_EQ(DTypeMax(DType::kInt32), 2147483647);
}

TEST(OpType, EveryTypeRoundTripsAndHasMatchingDefaultAttrs) {
  // The v1 list of docs/graph-format.md and the lowered ops of docs/lowered-ops.md.
  EXPECT_EQ(kNumOpTypes, 74);  // (+ unary, binary, cumsum: the float fallback; + the 5 float layers; + qlstm;
                               // + 7 table activations, decisions.md 89)
  for (int i = 0; i < kNumOpTypes; ++i) {
    const OpType t = static_cast<OpType>(i);
    EXPECT_EQ(ParseOpType(OpTypeName(t)), t) << OpTypeName(t);
    EXPECT_TRUE(AttrsMatch(t, DefaultAttrs(t))) << OpTypeName(t);
    EXPECT_TRUE(IsGraphFileOp(t));
  }
  EXPECT_FALSE(ParseOpType("no_such_op").has_value());
  EXPECT_FALSE(AttrsMatch(OpType::kConv2d, NoAttrs{}));
  EXPECT_EQ(GetOpTypeInfo(OpType::kConv2d).min_inputs, 2);
  EXPECT_EQ(GetOpTypeInfo(OpType::kConv2d).max_inputs, 3);
  EXPECT_EQ(GetOpTypeInfo(OpType::kCat).max_inputs, kVariadic);
}

TEST(Tensor, CheckedNumElements) {
  EXPECT_EQ(CheckedNumElements({}), 1);
  EXPECT_EQ(CheckedNumElements({2, 3, 4}), 24);
  EXPECT_FALSE(CheckedNumElements({2, 0}).has_value());
  EXPECT_FALSE(CheckedNumElements({-1}).has_value());
  EXPECT_FALSE(CheckedNumElements({1, 1, 1, 1, 1, 1, 1}).has_value());   // rank 7
  EXPECT_FALSE(CheckedNumElements({1 << 20, 1 << 20}).has_value());      // 2^40 elements
  EXPECT_FALSE(CheckedNumElements({INT64_MAX, INT64_MAX}).has_value());  // no overflow
}

TEST(Quant, ValidateAcceptsPerTensorAndPerChannel) {
  EXPECT_TRUE(ValidateQuant(PerTensorQuant(0.02, -128, -128, 127), DType::kInt8, {1, 4}).ok());
  QuantParams pc{{0.1, 0.2}, {0, 0}, 1, -127, 127};
  EXPECT_TRUE(ValidateQuant(pc, DType::kInt8, {3, 2}).ok());
  QuantParams bias{{1e-4}, {0}, std::nullopt, INT32_MIN, INT32_MAX};
  EXPECT_TRUE(ValidateQuant(bias, DType::kInt32, {8}).ok());
}

TEST(Quant, ValidateRejectsEachBadField) {
  auto msg = [](const QuantParams& q, DType t, const Shape& s) {
    Status st = ValidateQuant(q, t, s);
    return st.ok() ? std::string("ok") : st.error().message();
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(msg(PerTensorQuant(nan, 0, -128, 127), DType::kInt8, {2}),
            "quant.scale[0]: must be finite and > 0, got nan");
  EXPECT_EQ(msg(PerTensorQuant(0.0, 0, -128, 127), DType::kInt8, {2}),
            "quant.scale[0]: must be finite and > 0, got 0");
  EXPECT_EQ(msg(PerTensorQuant(-1.0, 0, -128, 127), DType::kInt8, {2}),
            "quant.scale[0]: must be finite and > 0, got -1");
  EXPECT_NE(msg(PerTensorQuant(1e-300, 0, -128, 127), DType::kInt8, {2}).find("float32"),
            std::string::npos);
  EXPECT_EQ(msg(PerTensorQuant(0.1, 128, -128, 127), DType::kInt8, {2}),
            "quant.zero_point[0]: 128 outside [qmin, qmax] = [-128, 127]");
  EXPECT_NE(msg(PerTensorQuant(0.1, 0, -129, 127), DType::kInt8, {2}).find("quant.qmin/qmax"),
            std::string::npos);
  EXPECT_NE(msg(PerTensorQuant(0.1, 0, 5, 4), DType::kInt8, {2}).find("quant.qmin/qmax"),
            std::string::npos);
  QuantParams pc{{0.1, 0.2}, {0, 0}, 0, -127, 127};
  EXPECT_EQ(msg(pc, DType::kInt8, {3, 2}),
            "quant.scale: 2 values for per-channel axis 0 of size 3");
  pc.axis = 2;
  EXPECT_EQ(msg(pc, DType::kInt8, {3, 2}), "quant.axis: 2 out of range for rank 2");
  QuantParams two{{0.1, 0.2}, {0, 0}, std::nullopt, -127, 127};
  EXPECT_NE(msg(two, DType::kInt8, {2}).find("axis is null"), std::string::npos);
  QuantParams uneven{{0.1}, {0, 0}, std::nullopt, -127, 127};
  EXPECT_EQ(msg(uneven, DType::kInt8, {2}), "quant.zero_point: 2 values for 1 scales");
  EXPECT_EQ(msg(PerTensorQuant(0.1, 0, -128, 127), DType::kFloat32, {2}),
            "quant: not allowed on float32 tensors");
}

TEST(Text, FormatDoubleIsShortestAndExact) {
  EXPECT_EQ(FormatDouble(0.02), "0.02");
  EXPECT_EQ(FormatDouble(6.0), "6");
  EXPECT_EQ(FormatDouble(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(FormatFloat(0.1f), "0.1");
  EXPECT_EQ(WithThousands(1234567), "1,234,567");
  EXPECT_EQ(WithThousands(-1000), "-1,000");
  EXPECT_EQ(WithThousands(999), "999");
  EXPECT_EQ(Quote("a\"b\n"), "\"a\\\"b\\n\"");
  EXPECT_EQ(SaturatingMul(INT64_MAX, 2), INT64_MAX);
  EXPECT_EQ(SaturatingAdd(INT64_MAX, 1), INT64_MAX);
}

TEST(Printer, FloatGraphGolden) {
  EXPECT_EQ(PrintGraph(testing::FloatConvGraph()),
            "graph float_conv kind=float\n"
            "  input %0 x: float32[1,1,3,3]\n"
            "  const %1 w: float32[1,1,2,2] = [1,0,0,1]\n"
            "  const %2 b: float32[1] = [0.5]\n"
            "  %3 conv_out: float32[1,1,2,2] = conv2d(%0, %1, %2) {stride=[1,1], "
            "padding=[0,0,0,0], dilation=[1,1], groups=1}  # conv\n"
            "  %4 y: float32[1,1,2,2] = relu(%3)  # relu\n"
            "  output %4\n");
}

TEST(Printer, QdqOpLinesAndOptions) {
  const Graph g = testing::QdqConvGraph();
  EXPECT_EQ(PrintOp(g, 4),
            "  %7 conv_out: float32[1,3,2,2] = conv2d(%2, %4, %6) {stride=[2,2], "
            "padding=[1,1,1,1], dilation=[1,1], groups=1}  # conv1 @ models.py:41");
  EXPECT_EQ(PrintOp(g, 0), "  %1 x_q: int8[1,2,4,4] q(s=0.05, zp=-3) = quantize(%0)  # q_x");
  PrintOptions bare;
  bare.tensor_names = false;
  bare.op_names = false;
  EXPECT_EQ(PrintOp(g, 6, bare), "  %9: int8[1,3,2,2] q(s=0.1, zp=-128) = quantize(%8)");
  const std::string text = PrintGraph(g);
  EXPECT_NE(text.find("const %3 w_q: int8[3,2,3,3] q(axis=0, s=[0.01,0.02,0.03], zp=[0,0,0], "
                      "range=[-127,127]) = blob(54 bytes, fnv1a=0x"),
            std::string::npos)
      << text;
  EXPECT_EQ(text, PrintGraph(g));  // deterministic
  EXPECT_EQ(PrintQuant(QuantParams{{0.5, 0.25, 1}, {0, 1, 2}, 0, -127, 127}, DType::kInt8, 2),
            "q(axis=0, s=[0.5,0.25,...(3 values)], zp=[0,1,...(3 values)], range=[-127,127])");
}

TEST(Printer, HandlesBrokenGraphsWithoutCrashing) {
  Graph g = testing::FloatConvGraph();
  g.ops[0].inputs[1] = 99;
  g.outputs = {-1};
  const std::string text = PrintGraph(g);
  EXPECT_NE(text.find("conv2d(%0, %?99, %2)"), std::string::npos) << text;
  EXPECT_NE(text.find("output %?-1"), std::string::npos) << text;
  EXPECT_EQ(PrintName("has space"), "\"has space\"");
  EXPECT_EQ(PrintName("layer1.0/conv-1"), "layer1.0/conv-1");
  EXPECT_EQ(PrintName("a:b"), "\"a:b\"");
}

TEST(Stats, QdqConvGraph) {
  const Graph g = testing::QdqConvGraph();
  const GraphStats s = ComputeStats(g);
  ASSERT_EQ(s.ops.size(), g.ops.size());
  // conv1: N*O*Ho*Wo * (C/groups)*kh*kw = 1*3*2*2 * 2*3*3.
  EXPECT_EQ(s.ops[4].macs, 216);
  EXPECT_EQ(s.ops[4].params, 54 + 3);
  EXPECT_EQ(s.ops[4].param_bytes, 54 + 12);  // the int8 weights and int32 bias it reads
  EXPECT_FALSE(s.ops[4].constant_folded);
  EXPECT_TRUE(s.ops[2].constant_folded);  // dq_w only prepares weights
  EXPECT_EQ(s.ops[2].params, 0);
  EXPECT_EQ(s.macs, 216);
  EXPECT_EQ(s.params, 54 + 3);
  EXPECT_EQ(s.constant_bytes, 54 + 12);
  // Activations: x 128, x_q 32, x_dq 128, conv_out 48, relu_out 48, y_q 12, y 48.
  EXPECT_EQ(s.activation_bytes, 128 + 32 + 128 + 48 + 48 + 12 + 48);
  EXPECT_EQ(s.largest_activation_bytes, 128);
  EXPECT_EQ(s.largest_activation, 0);
}

TEST(Stats, LinearMacs) {
  Graph g;
  g.inputs = {g.AddTensor(F32("x", {2, 5, 8}))};
  g.AddTensor(testing::ConstF32("w", {4, 8}, std::vector<float>(32, 1.0f)));
  g.outputs = {g.AddTensor(F32("y", {2, 5, 4}))};
  g.AddOp(MakeOp(OpType::kLinear, "fc", {0, 1}, {2}));
  ASSERT_TRUE(Verify(g).ok());
  EXPECT_EQ(OpMacs(g, g.ops[0]), 2 * 5 * 4 * 8);
}

TEST(Graph, ProducersConsumersAndCompact) {
  Graph g = testing::FloatConvGraph();
  g.AddTensor(F32("orphan", {7}));  // id 5, referenced by nothing
  const auto producers = ComputeProducers(g);
  EXPECT_EQ(producers[3], 0);
  EXPECT_EQ(producers[4], 1);
  EXPECT_EQ(producers[0], kNoProducer);
  const auto consumers = ComputeConsumers(g);
  EXPECT_EQ(consumers[3], std::vector<int>{1});
  // Insert the orphan in the middle to check renumbering.
  std::swap(g.tensors[5], g.tensors[3]);  // orphan at 3, conv_out at 5
  g.ops[0].outputs = {5};
  g.ops[1].inputs = {5};
  ASSERT_TRUE(Verify(g).ok());
  const auto remap = CompactTensors(g);
  EXPECT_EQ(remap[3], -1);
  EXPECT_EQ(remap[5], 4);
  EXPECT_EQ(g.tensors.size(), 5u);
  EXPECT_EQ(g.ops[0].outputs[0], remap[5]);
  EXPECT_EQ(g.outputs[0], remap[4]);
  EXPECT_TRUE(Verify(g).ok());
  EXPECT_EQ(g.FindTensor("conv_out"), 4);
  EXPECT_EQ(g.FindOp("relu"), 1u);
  EXPECT_FALSE(g.FindTensor("orphan").has_value());
}

}  // namespace
}  // namespace tinyforge::ir
