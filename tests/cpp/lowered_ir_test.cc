// The lowered op set in the IR: text round trip, graph-file round trip, verifier rules.
#include <gtest/gtest.h>

#include "import/graph_file.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "pass_test_util.h"

namespace tinyforge::ir {
namespace {

constexpr std::string_view kLowered = R"(graph m kind=int8 layout=NHWC io_layout=NCHW
  input %0 x: int8[1,3,4,4] q(s=0.1, zp=-3)
  const %1 w: int8[2,1,1,3] q(axis=0, s=[0.5,0.25], zp=[0,0], range=[-127,127]) = [1,2,3,4,5,6]
  const %2 b: int32[2] = [7,-7]
  const %3 m: int32[2] = [1073741824,1200000000]
  const %4 s: int32[2] = [-1,-3]
  %5 x.nhwc: int8[1,4,4,3] q(s=0.1, zp=-3) = transpose(%0) {perm=[0,2,3,1]}  # in
  %6 c: int8[1,4,4,2] q(s=0.2, zp=-128) = qconv2d(%5, %1, %2, %3, %4) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], groups=1, act_min=-128, act_max=127, layout=NHWC, input_zp_folded=true}  # conv
  %7 p: int8[1,2,2,2] q(s=0.2, zp=-128) = qavgpool2d(%6) {kernel=[2,2], stride=[2,2], padding=[0,0,0,0], act_min=-128, act_max=127, layout=NHWC}  # pool
  %8 f: int8[1,8] q(s=0.2, zp=-128) = reshape(%7) {shape=[1,8]}  # flat
  %9 y: int8[1,8] q(s=0.00390625, zp=-128) = qsoftmax(%8) {axis=-1}  # softmax
  output %9
)";

TEST(LoweredIr, TextAndGraphFileRoundTrip) {
  auto g = ParseGraph(kLowered);
  ASSERT_TRUE(g.ok()) << g.error().message();
  ASSERT_TRUE(Verify(*g).ok()) << Verify(*g).error().message();
  EXPECT_EQ(PrintGraph(*g, testing::WholeGraph()), kLowered);
  auto bytes = import::WriteGraphBytes(*g);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  auto back = import::ParseGraphFile(*bytes, "m.tfg");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(PrintGraph(*back, testing::WholeGraph()), kLowered);
  EXPECT_EQ(back->kind, GraphKind::kInt8);
  EXPECT_EQ(back->io_layout, Layout::kNCHW);
}

std::string VerifyEdited(std::string_view from, std::string_view to) {
  std::string text(kLowered);
  const size_t at = text.find(from);
  if (at == std::string::npos) return "edit not found";
  text.replace(at, from.size(), to);
  auto g = ParseGraph(text);
  if (!g.ok()) return "parse: " + g.error().message();
  Status s = Verify(*g);
  return s.ok() ? "ok" : s.error().message();
}

TEST(LoweredIr, VerifierRules) {
  EXPECT_EQ(VerifyEdited("kind=int8", "kind=qdq"),
            "op 'conv' (#1): type: qconv2d is a lowered op; it needs a graph of kind \"int8\", "
            "not \"qdq\"");
  EXPECT_EQ(VerifyEdited("layout=NHWC, input_zp_folded=true", "layout=NCHW, input_zp_folded=true"),
            "op 'conv' (#1): inputs[1]: weight shape [2,1,1,3] needs dim 1 = C/groups = 4 for "
            "input [1,4,4,3]");
  EXPECT_EQ(VerifyEdited("const %3 m: int32[2] = [1073741824,1200000000]",
                         "const %3 m: int32[1] = [1]"),
            "op 'conv' (#1): inputs[3]: multiplier shape [1], expected [2]");
  EXPECT_EQ(VerifyEdited("q(s=0.00390625, zp=-128) = qsoftmax",
                         "q(s=0.0039, zp=-128) = qsoftmax"),
            "op 'softmax' (#4): outputs[0]: int8[1,8] 'y' must be int8 with scale 0.00390625 "
            "and zero point -128 (TFLite's fixed output parameters)");
  EXPECT_EQ(VerifyEdited("%7 p: int8[1,2,2,2] q(s=0.2, zp=-128)",
                         "%7 p: int8[1,2,2,2] q(s=0.3, zp=-128)"),
            "op 'pool' (#2): outputs[0]: int8[1,2,2,2] 'p' must be quantized like the input "
            "(TFLite: no rescaling in qavgpool2d)");
  EXPECT_EQ(VerifyEdited("act_min=-128, act_max=127, layout=NHWC, input",
                         "act_min=5, act_max=4, layout=NHWC, input"),
            "op 'conv' (#1): attrs.act_min: [5, 4] must satisfy -128 <= act_min <= act_max <= 127");
  EXPECT_EQ(VerifyEdited("zp=[0,0], range", "zp=[0,1], range"),
            "op 'conv' (#1): inputs[1]: int8[2,1,1,3] 'w' must be int8 weights with zero point 0, "
            "per tensor or per channel on axis 0");
  EXPECT_EQ(VerifyEdited("%9 y: int8[1,8] q(s=0.00390625, zp=-128) = qsoftmax(%8) {axis=-1}",
                         "%9 y: float32[1,8] = dequantize(%8)"),
            "ok");
  EXPECT_EQ(VerifyEdited("%8 f: int8[1,8] q(s=0.2, zp=-128) = reshape(%7) {shape=[1,8]}",
                         "%8 f: float32[1,8] = dequantize(%7)").rfind("op 'flat' (#3): ", 0),
            0u);
}

TEST(LoweredIr, MultiplierInputsComeInPairs) {
  EXPECT_EQ(VerifyEdited("qconv2d(%5, %1, %2, %3, %4)", "qconv2d(%5, %1, %2, %3)"),
            "op 'conv' (#1): inputs: takes 3 inputs, or 5 with multiplier and shift, got 4");
}

// A lowered float model keeps mean / softmax / cat / ... as float ops (docs/decisions.md 68):
// float32 only; int8 ones are no lowered ops (fold-qdq writes qmean, qsoftmax, qconcat).
TEST(LoweredIr, FloatModelOpsAreFloat32Only) {
  constexpr std::string_view kFloatModel = R"(graph f kind=int8 layout=NHWC io_layout=NHWC
  input %0 x: float32[1,4]
  %1 s: float32[1,4] = softmax(%0) {axis=-1}  # softmax
  %2 c: float32[1,8] = cat(%0, %1) {axis=1}  # cat
  output %2
)";
  auto g = ParseGraph(kFloatModel);
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_TRUE(Verify(*g).ok()) << Verify(*g).error().message();
  // int8 softmax: the float op's dtype rule; int8 cat (cat moves any dtype): the lowered
  // graph's rule.
  auto int8_softmax = ParseGraph(R"(graph f kind=int8 layout=NHWC io_layout=NHWC
  input %0 x: int8[1,4] q(s=0.1, zp=0)
  %1 s: int8[1,4] q(s=0.1, zp=0) = softmax(%0) {axis=-1}  # softmax
  output %1
)");
  ASSERT_TRUE(int8_softmax.ok()) << int8_softmax.error().message();
  Status s = Verify(*int8_softmax);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "op 'softmax' (#0): inputs[0]: int8[1,4] 'x' must be float32");
  auto int8_cat = ParseGraph(R"(graph f kind=int8 layout=NHWC io_layout=NHWC
  input %0 x: int8[1,4] q(s=0.1, zp=0)
  %1 c: int8[1,8] q(s=0.1, zp=0) = cat(%0, %0) {axis=1}  # cat
  output %1
)");
  ASSERT_TRUE(int8_cat.ok()) << int8_cat.error().message();
  s = Verify(*int8_cat);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "op 'cat' (#0): inputs[0]: cat in a graph of kind \"int8\" is "
                                 "a float model's op: float32 only");
}

}  // namespace
}  // namespace tinyforge::ir
