// IR text round trip: PrintGraph(ParseGraph(text)) == text, and parse errors.
#include <gtest/gtest.h>

#include "builders.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace tinyforge::ir {
namespace {

TEST(Parser, RoundTripsPrintedGraphs) {
  PrintOptions inline_all;
  inline_all.max_inline_constant = 1000;
  for (const Graph& g : {testing::FloatConvGraph(), testing::QdqConvGraph()}) {
    const std::string text = PrintGraph(g, inline_all);
    auto parsed = ParseGraph(text);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message() << "\n" << text;
    EXPECT_EQ(PrintGraph(*parsed, inline_all), text);
    EXPECT_TRUE(Verify(*parsed).ok());
    // Constant bytes and quant params survive exactly.
    for (size_t i = 0; i < g.tensors.size(); ++i) {
      EXPECT_EQ(parsed->tensors[i].data, g.tensors[i].data) << i;
      EXPECT_EQ(parsed->tensors[i].quant, g.tensors[i].quant) << i;
    }
  }
}

TEST(Parser, EveryAttrKindAndQuotedNames) {
  const std::string text =
      "graph \"my graph\" kind=qdq producer=\"torch \\\"2\\\"\"\n"
      "  input %0 \"x in\": float32[1,2,6,6]\n"
      "  %1 p: float32[1,2,3,3] = max_pool2d(%0) {kernel=[2,2], stride=[2,2], "
      "padding=[0,0,0,0], dilation=[1,1], ceil_mode=false}  # pool @ m.py:3\n"
      "  %2 a: float32[1,2,3,3] = avg_pool2d(%1) {kernel=[3,3], stride=[1,1], "
      "padding=[1,1,1,1], ceil_mode=true, count_include_pad=false, divisor_override=0}  # avg\n"
      "  %3 h: float32[1,2,3,3] = hardtanh(%2) {min=0, max=6}  # relu6\n"
      "  %4 m: float32[1,2,1,1] = mean(%3) {dims=[2,3], keepdim=true}  # gap\n"
      "  %5 r: float32[1,2] = reshape(%4) {shape=[1,-1]}  # flat\n"
      "  %6 s: float32[1,2] = softmax(%5) {axis=-1}  # \"soft max\" @ a b.py:1\n"
      "  output %6\n";
  auto g = ParseGraph(text);
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_EQ(g->name, "my graph");
  EXPECT_EQ(g->producer, "torch \"2\"");
  EXPECT_EQ(g->tensors[0].name, "x in");
  EXPECT_EQ(g->ops[0].source, "m.py:3");
  EXPECT_EQ(g->ops[5].name, "soft max");
  EXPECT_EQ(g->ops[5].source, "a b.py:1");
  EXPECT_EQ(g->ops[2].attrs_as<HardtanhAttrs>().max, 6.0);
  EXPECT_EQ(g->ops[3].attrs_as<MeanAttrs>().dims, (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(g->ops[1].attrs_as<AvgPool2dAttrs>().ceil_mode);
  EXPECT_TRUE(Verify(*g).ok()) << Verify(*g).error().message();
  EXPECT_EQ(PrintGraph(*g), text);
}

TEST(Parser, OmittedNamesGetDefaults) {
  auto g = ParseGraph(
      "// a comment\n"
      "graph t kind=float\n"
      "\n"
      "  input %0: float32[2]\n"
      "  %1: float32[2] = relu(%0)\n"
      "  output %1\n");
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_EQ(g->tensors[1].name, "t1");
  EXPECT_EQ(g->ops[0].name, "op0");
}

TEST(Parser, ErrorsNameTheLine) {
  auto err = [](const std::string& text) {
    auto g = ParseGraph(text);
    return g.ok() ? std::string("ok") : g.error().message();
  };
  EXPECT_EQ(err(""), "line 1: empty text, expected a 'graph' header");
  EXPECT_EQ(err("  input %0 x: float32[2]\n"), "line 1: expected the 'graph' header first");
  EXPECT_EQ(err("graph t kind=float\n  %1 y: float32[2] = no_such_op(%0)\n"),
            "line 2: unknown op type 'no_such_op'");
  EXPECT_EQ(err("graph t kind=float\n  input %1 x: float32[2]\n  output %1\n"),
            "tensor %0 is never declared (ids must be 0..N-1)");
  EXPECT_EQ(err("graph t kind=float\n  input %0 x: float32[2]\n  input %0 y: float32[2]\n"),
            "line 3: tensor %0 declared twice");
  EXPECT_EQ(err("graph t kind=float\n  input %0 x: float64[2]\n"),
            "line 2: unknown dtype 'float64'");
  EXPECT_EQ(err("graph t kind=float\n  input %0 x: float32[2]\n"
                "  %1 y: float32[2] = hardtanh(%0) {min=0}\n"),
            "line 3: attribute 'max' missing");
  EXPECT_EQ(err("graph t kind=float\n  input %0 x: float32[2]\n"
                "  %1 y: float32[2] = relu(%0) {alpha=1}\n"),
            "line 3: unknown attribute 'alpha'");
  EXPECT_EQ(err("graph t kind=float\n  const %0 w: int8[2] q(s=1, zp=0) = blob(2 bytes, "
                "fnv1a=0x1)\n"),
            "line 2: blob(...) constants cannot be read back; inline the values");
  EXPECT_EQ(err("graph t kind=float\n  const %0 w: int8[2] q(s=1, zp=0) = [1,300]\n"),
            "line 2: value 300 out of range");
  EXPECT_EQ(err("graph t kind=float\n  input %0 \"x: float32[2]\n"),
            "line 2: unterminated quoted name");
}

}  // namespace
}  // namespace tinyforge::ir
