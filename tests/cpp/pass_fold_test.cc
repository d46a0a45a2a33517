// fold-qdq and io-edges, IR text in / IR text out.
#include "pass_test_util.h"

#include "exec/executor.h"

namespace tinyforge {
namespace {

using testing::RunPasses;

// PT2E's pattern: x -> q -> dq -> conv(dq(w), dq(b)) -> relu -> q -> dq -> y.
constexpr std::string_view kConvRelu = R"(graph t kind=qdq
  input %0 x: float32[1,1,2,2]
  const %3 w: int8[2,1,1,1] q(axis=0, s=[0.5,0.25], zp=[0,0], range=[-127,127]) = [1,-2]
  const %5 b: int32[2] q(axis=0, s=[0.05,0.025], zp=[0,0]) = [10,-20]
  %1 x.q: int8[1,1,2,2] q(s=0.1, zp=3) = quantize(%0)  # x.q
  %2 x.q.dq: float32[1,1,2,2] = dequantize(%1)  # x.q.dq
  %4 w.dq: float32[2,1,1,1] = dequantize(%3)  # w.dq
  %6 b.dq: float32[2] = dequantize(%5)  # b.dq
  %7 conv: float32[1,2,2,2] = conv2d(%2, %4, %6) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], groups=1}  # conv @ m.py:3
  %8 relu: float32[1,2,2,2] = relu(%7)  # relu
  %9 relu.q: int8[1,2,2,2] q(s=0.2, zp=-10) = quantize(%8)  # relu.q
  %10 relu.q.dq: float32[1,2,2,2] = dequantize(%9)  # relu.q.dq
  output %10
)";

TEST(FoldQdq, ConvThenReluBecomesQconvAndClampKeepingNames) {
  // The conv writes its float output's tensor, retyped to int8 with the quantize's
  // parameters; relu becomes a clamp at the zero point; the clamp writes "relu.q".
  EXPECT_EQ(RunPasses(kConvRelu, "fold-qdq"), R"(graph t kind=int8
  input %0 x: float32[1,1,2,2]
  const %2 w: int8[2,1,1,1] q(axis=0, s=[0.5,0.25], zp=[0,0], range=[-127,127]) = [1,-2]
  const %3 b: int32[2] q(axis=0, s=[0.05,0.025], zp=[0,0]) = [10,-20]
  %1 x.q: int8[1,1,2,2] q(s=0.1, zp=3) = quantize(%0)  # x.q
  %4 conv: int8[1,2,2,2] q(s=0.2, zp=-10) = qconv2d(%1, %2, %3) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], groups=1, act_min=-128, act_max=127, layout=NCHW, input_zp_folded=false}  # conv @ m.py:3
  %5 relu.q: int8[1,2,2,2] q(s=0.2, zp=-10) = requantize(%4) {act_min=-10, act_max=127}  # relu
  %6 relu.q.dq: float32[1,2,2,2] = dequantize(%5)  # relu.q.dq
  output %6
)");
}

TEST(FoldQdq, IoEdgesMakesInputAndOutputInt8) {
  EXPECT_EQ(RunPasses(kConvRelu, "fold-qdq,io-edges,fuse-activation"), R"(graph t kind=int8
  input %0 x.q: int8[1,1,2,2] q(s=0.1, zp=3)
  const %1 w: int8[2,1,1,1] q(axis=0, s=[0.5,0.25], zp=[0,0], range=[-127,127]) = [1,-2]
  const %2 b: int32[2] q(axis=0, s=[0.05,0.025], zp=[0,0]) = [10,-20]
  %3 relu.q: int8[1,2,2,2] q(s=0.2, zp=-10) = qconv2d(%0, %1, %2) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], groups=1, act_min=-10, act_max=127, layout=NCHW, input_zp_folded=false}  # conv @ m.py:3
  output %3
)");
  passes::PassOptions keep_float;
  keep_float.io = passes::IoType::kFloat;
  const std::string kept = RunPasses(kConvRelu, "fold-qdq,io-edges", keep_float);
  EXPECT_NE(kept.find("= quantize(%0)"), std::string::npos) << kept;
  EXPECT_NE(kept.find("= dequantize("), std::string::npos) << kept;
}

TEST(FoldQdq, Relu6AndHardtanhBoundsFollowTflm) {
  // hardtanh(0, 6) on scale 0.05, zp -128: [zp + round(0/0.05), zp + round(6/0.05)] =
  // [-128, -8]; hardtanh(-1, 1) on scale 0.01, zp 0: [-100, 100].
  const std::string text = R"(graph t kind=qdq
  input %0 x: float32[4]
  %1 x.q: int8[4] q(s=0.1, zp=0) = quantize(%0)  # x.q
  %2 x.q.dq: float32[4] = dequantize(%1)  # x.q.dq
  %3 r6: float32[4] = hardtanh(%2) {min=0, max=6}  # relu6
  %4 r6.q: int8[4] q(s=0.05, zp=-128) = quantize(%3)  # r6.q
  %5 r6.q.dq: float32[4] = dequantize(%4)  # r6.q.dq
  %6 h: float32[4] = hardtanh(%5) {min=-1, max=1}  # ht
  %7 h.q: int8[4] q(s=0.01, zp=0) = quantize(%6)  # h.q
  %8 h.q.dq: float32[4] = dequantize(%7)  # h.q.dq
  output %8
)";
  const std::string out = RunPasses(text, "fold-qdq");
  EXPECT_NE(out.find("= requantize(%1) {act_min=-128, act_max=-8}  # relu6"), std::string::npos)
      << out;
  EXPECT_NE(out.find("{act_min=-100, act_max=100}  # ht"), std::string::npos) << out;
}

TEST(FoldQdq, DepthwiseAndLinearWithoutBias) {
  const std::string text = R"(graph t kind=qdq
  input %0 x: float32[1,2,3,3]
  const %3 w: int8[2,1,3,3] q(axis=0, s=[0.5,0.25], zp=[0,0], range=[-127,127]) = [1,2,3,4,5,6,7,8,9,-1,-2,-3,-4,-5,-6,-7,-8,-9]
  const %8 fw: int8[3,2] q(axis=0, s=[0.1,0.2,0.3], zp=[0,0,0], range=[-127,127]) = [1,2,3,4,5,6]
  %1 x.q: int8[1,2,3,3] q(s=0.1, zp=0) = quantize(%0)  # x.q
  %2 x.q.dq: float32[1,2,3,3] = dequantize(%1)  # x.q.dq
  %4 w.dq: float32[2,1,3,3] = dequantize(%3)  # w.dq
  %5 dw: float32[1,2,1,1] = conv2d(%2, %4) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], groups=2}  # dw
  %6 dw.q: int8[1,2,1,1] q(s=0.3, zp=1) = quantize(%5)  # dw.q
  %7 dw.q.dq: float32[1,2,1,1] = dequantize(%6)  # dw.q.dq
  %9 flat: float32[1,2] = reshape(%7) {shape=[1,2]}  # flat
  %10 flat.q: int8[1,2] q(s=0.3, zp=1) = quantize(%9)  # flat.q
  %11 flat.q.dq: float32[1,2] = dequantize(%10)  # flat.q.dq
  %12 fw.dq: float32[3,2] = dequantize(%8)  # fw.dq
  %13 fc: float32[1,3] = linear(%11, %12)  # fc
  %14 fc.q: int8[1,3] q(s=0.5, zp=0) = quantize(%13)  # fc.q
  %15 fc.q.dq: float32[1,3] = dequantize(%14)  # fc.q.dq
  output %15
)";
  EXPECT_EQ(RunPasses(text, "fold-qdq,io-edges"), R"(graph t kind=int8
  input %0 x.q: int8[1,2,3,3] q(s=0.1, zp=0)
  const %1 w: int8[2,1,3,3] q(axis=0, s=[0.5,0.25], zp=[0,0], range=[-127,127]) = [1,2,3,4,5,6,7,8,9,-1,-2,-3,-4,-5,-6,-7,-8,-9]
  const %3 fw: int8[3,2] q(axis=0, s=[0.1,0.2,0.3], zp=[0,0,0], range=[-127,127]) = [1,2,3,4,5,6]
  const %6 dw.bias: int32[2] = [0,0]
  const %7 fc.bias: int32[3] = [0,0,0]
  %2 dw.q: int8[1,2,1,1] q(s=0.3, zp=1) = qdwconv2d(%0, %1, %6) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], depth_multiplier=1, act_min=-128, act_max=127, layout=NCHW, input_zp_folded=false}  # dw
  %4 flat.q: int8[1,2] q(s=0.3, zp=1) = reshape(%2) {shape=[1,2]}  # flat
  %5 fc.q: int8[1,3] q(s=0.5, zp=0) = qfc(%4, %3, %7) {act_min=-128, act_max=127, input_zp_folded=false}  # fc
  output %5
)");
}

TEST(FoldQdq, ConcatRequantizesMismatchedInputsAndPoolRequantizesOutput) {
  const std::string text = R"(graph t kind=qdq
  input %0 x: float32[1,1,2,2]
  %1 x.q: int8[1,1,2,2] q(s=0.1, zp=0) = quantize(%0)  # x.q
  %2 x.q.dq: float32[1,1,2,2] = dequantize(%1)  # x.q.dq
  %3 p: float32[1,1,1,1] = max_pool2d(%2) {kernel=[2,2], stride=[2,2], padding=[0,0,0,0], dilation=[1,1], ceil_mode=false}  # pool
  %4 p.q: int8[1,1,1,1] q(s=0.2, zp=0) = quantize(%3)  # p.q
  %5 p.q.dq: float32[1,1,1,1] = dequantize(%4)  # p.q.dq
  %6 c: float32[1,2,1,1] = cat(%5, %5) {axis=1}  # cat
  %7 c.q: int8[1,2,1,1] q(s=0.4, zp=0) = quantize(%6)  # c.q
  %8 c.q.dq: float32[1,2,1,1] = dequantize(%7)  # c.q.dq
  output %8
)";
  const std::string out = RunPasses(text, "fold-qdq,io-edges");
  EXPECT_NE(out.find("%3 p.q.pre: int8[1,1,1,1] q(s=0.1, zp=0) = qmaxpool2d(%0)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("= requantize(%3) {act_min=-128, act_max=127}  # pool.requantize"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("p.q.requantized: int8[1,1,1,1] q(s=0.4, zp=0) = requantize(%"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("= qconcat(%4, %4) {axis=1}  # cat"), std::string::npos) << out;
}

TEST(FoldQdq, RejectsWhatTflmCannotComputeNamingTheOp) {
  const std::string avg = R"(graph t kind=qdq
  input %0 x: float32[1,1,4,4]
  %1 x.q: int8[1,1,4,4] q(s=0.1, zp=0) = quantize(%0)  # x.q
  %2 x.q.dq: float32[1,1,4,4] = dequantize(%1)  # x.q.dq
  %3 a: float32[1,1,4,4] = avg_pool2d(%2) {kernel=[3,3], stride=[1,1], padding=[1,1,1,1], ceil_mode=false, count_include_pad=true, divisor_override=0}  # blur
  %4 a.q: int8[1,1,4,4] q(s=0.1, zp=0) = quantize(%3)  # a.q
  %5 a.q.dq: float32[1,1,4,4] = dequantize(%4)  # a.q.dq
  output %5
)";
  const std::string out = RunPasses(avg, "fold-qdq");
  EXPECT_EQ(out.rfind("error: pass 'fold-qdq': op 'blur' (#2): avg_pool2d with padding and "
                      "count_include_pad=True",
                      0),
            0u)
      << out;
  std::string dilated(avg);
  dilated.replace(dilated.find("avg_pool2d"), std::string("avg_pool2d").size(), "max_pool2d");
  dilated.replace(dilated.find("ceil_mode=false, count_include_pad=true, divisor_override=0"),
                  std::string("ceil_mode=false, count_include_pad=true, divisor_override=0").size(),
                  "dilation=[2,2], ceil_mode=false");
  dilated.replace(dilated.find("[1,1,4,4] = max"), 9, "[1,1,2,2]");
  dilated.replace(dilated.find("a.q: int8[1,1,4,4]"), 18, "a.q: int8[1,1,2,2]");
  dilated.replace(dilated.find("a.q.dq: float32[1,1,4,4]"), 24, "a.q.dq: float32[1,1,2,2]");
  EXPECT_NE(RunPasses(dilated, "fold-qdq").find("op 'blur' (#2): max_pool2d with dilation 2x2"),
            std::string::npos)
      << RunPasses(dilated, "fold-qdq");
  const std::string float_graph = R"(graph f kind=float
  input %0 x: float32[2]
  %1 y: float32[2] = relu(%0)  # r
  output %1
)";
  EXPECT_EQ(RunPasses(float_graph, "fold-qdq")
                .rfind("error: pass 'fold-qdq': graph 'f' is a float graph", 0),
            0u);
}

// A float graph (no calibration): fold-float lowers it to float32 ops (decision 52).
constexpr std::string_view kFloatConvRelu = R"(graph f kind=float
  input %0 x: float32[1,1,2,2]
  const %1 w: float32[2,1,1,1] = [1,-2]
  const %2 b: float32[2] = [0.5,-0.5]
  %3 conv: float32[1,2,2,2] = conv2d(%0, %1, %2) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], groups=1}  # conv
  %4 relu: float32[1,2,2,2] = relu(%3)  # relu
  %5 sum: float32[1,2,2,2] = add(%4, %4)  # add
  %6 y: float32[1,2,2,2] = relu(%5)  # relu2
  output %6
)";

TEST(FoldFloat, ConvReluIsFconvWithClampAddAndLoneReluAreBinary) {
  const std::string out = RunPasses(kFloatConvRelu, "fold-float");
  EXPECT_NE(out.find("graph f kind=int8"), std::string::npos) << out;
  EXPECT_NE(out.find("relu: float32[1,2,2,2] = fconv2d(%0, %1, %2) {stride=[1,1], "
                     "padding=[0,0,0,0], dilation=[1,1], act_min=0, act_max=inf, layout=NCHW}"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("= binary(%"), std::string::npos) << out;
  EXPECT_NE(out.find("{fn=add}  # add"), std::string::npos) << out;
  EXPECT_NE(out.find("{fn=maximum}  # relu2"), std::string::npos) << out;
  EXPECT_EQ(out.find("relu("), std::string::npos) << out;
  // The whole pipeline: NHWC, OHWI weights, float32 throughout.
  std::string pipeline;
  for (const std::string& name : passes::DefaultPipeline()) {
    pipeline += (pipeline.empty() ? "" : ",") + name;
  }
  const std::string all = RunPasses(kFloatConvRelu, pipeline);
  EXPECT_NE(all.find("fconv2d("), std::string::npos) << all;
  EXPECT_NE(all.find("layout=NHWC"), std::string::npos) << all;
  EXPECT_EQ(all.find("int8["), std::string::npos) << all;
}

TEST(FoldFloat, GroupedConvAndNoFloatRefused) {
  std::string grouped(kFloatConvRelu);
  grouped.replace(grouped.find("groups=1"), 8, "groups=2");
  grouped.replace(grouped.find("x: float32[1,1,2,2]"), 19, "x: float32[1,4,2,2]");
  grouped.replace(grouped.find("w: float32[2,1,1,1] = [1,-2]"), 28,
                  "w: float32[2,2,1,1] = [1,-2,3,4]");
  EXPECT_NE(RunPasses(grouped, "fold-float").find("conv2d with groups=2 that is not depthwise"),
            std::string::npos)
      << RunPasses(grouped, "fold-float");
  passes::PassOptions no_float;
  no_float.allow_float = false;
  EXPECT_NE(RunPasses(kFloatConvRelu, "fold-float", no_float)
                .find("graph 'f' is a float graph: all of its 4 ops would run in float32 and "
                      "--no-float forbids it"),
            std::string::npos);
}

TEST(ConstFold, QuantizedWeightsBecomeInt8ConstantsDequantizeStays) {
  // convert_pt2e(fold_quantize=False) leaves float weights behind a quantize.
  const std::string text = R"(graph t kind=qdq
  input %0 x: float32[2]
  const %1 w: float32[2] = [0.5,-0.25]
  %2 w.q: int8[2] q(s=0.25, zp=0, range=[-127,127]) = quantize(%1)  # w.q
  %3 w.dq: float32[2] = dequantize(%2)  # w.dq
  %4 y: float32[2] = add(%0, %3)  # add
  output %4
)";
  EXPECT_EQ(RunPasses(text, "const-fold"), R"(graph t kind=qdq
  input %0 x: float32[2]
  const %1 w.q: int8[2] q(s=0.25, zp=0, range=[-127,127]) = [2,-1]
  %2 w.dq: float32[2] = dequantize(%1)  # w.dq
  %3 y: float32[2] = add(%0, %2)  # add
  output %3
)");
}

}  // namespace
}  // namespace tinyforge

namespace tinyforge {
namespace {

// Two float chains from one dequantize (exp then log1p; sqrt), and a unary whose float output
// is a graph output (not a chain: it stays float).
constexpr std::string_view kFloatChains = R"(graph t kind=int8
  input %0 x: int8[256] q(s=0.05, zp=-3)
  %1 x.dq: float32[256] = dequantize(%0)  # x.dq
  %2 e: float32[256] = unary(%1) {fn=exp}  # e
  %3 l: float32[256] = unary(%2) {fn=log1p}  # l
  %4 y: int8[256] q(s=0.03, zp=-100) = quantize(%3)  # y
  %5 s: float32[256] = unary(%1) {fn=sqrt}  # s
  %6 z: int8[256] q(s=0.011, zp=-128) = quantize(%5)  # z
  %7 c: float32[256] = unary(%1) {fn=cos}  # c
  output %4
  output %6
  output %7
)";

TEST(FoldQdq, FloatChainsBecomeTablesOfTheirOwnKernels) {
  // The oracle is the chain itself: the graph run on the float kernels before the pass and
  // its tables after must agree bit for bit on every int8 input (order matters:
  // log1p(exp(x)) is not exp(log1p(x))).
  auto before = ir::ParseGraph(kFloatChains);
  ASSERT_TRUE(before.ok()) << before.error().message();
  ir::Graph after = *before;
  passes::LowerOptions lower;
  lower.passes = {"fold-qdq"};
  lower.verify_each = true;
  ASSERT_TRUE(passes::Lower(after, lower).ok());
  const std::string text = ir::PrintGraph(after, testing::WholeGraph());
  EXPECT_NE(text.find("y: int8[256] q(s=0.03, zp=-100) = qlut(%0,"), std::string::npos) << text;
  EXPECT_NE(text.find("z: int8[256] q(s=0.011, zp=-128) = qlut(%0,"), std::string::npos) << text;
  EXPECT_EQ(text.find("{fn=exp}"), std::string::npos) << text;
  EXPECT_EQ(text.find("{fn=sqrt}"), std::string::npos) << text;
  EXPECT_NE(text.find("{fn=cos}"), std::string::npos) << text;  // its output is float
  std::vector<int8_t> all(256);
  for (int i = 0; i < 256; ++i) all[static_cast<size_t>(i)] = static_cast<int8_t>(i - 128);
  const exec::HostTensor x = exec::HostTensor::Int8({256}, all);
  auto want = exec::Run(*before, std::span(&x, 1));
  auto got = exec::Run(after, std::span(&x, 1));
  ASSERT_TRUE(want.ok() && got.ok());
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_TRUE(want->outputs[k].BitEqual(got->outputs[k])) << "output " << k;
  }
  // The chains are no longer float: --no-float accepts them and names only the cos.
  passes::PassOptions strict;
  strict.allow_float = false;
  const std::string refused = testing::RunPasses(kFloatChains, "fold-qdq", strict);
  EXPECT_NE(refused.find("1 op(s) would run in float32"), std::string::npos) << refused;
  EXPECT_NE(refused.find("cos has no int8 lowering"), std::string::npos) << refused;
}

}  // namespace
}  // namespace tinyforge
