// fuse-activation, layout, split-groups, remove-noops, compute-multipliers, precompute-bias, dce and the
// pipeline: IR text in / IR text out, and every stage executes to the same values.
#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "builders.h"
#include "exec/executor.h"
#include "pass_test_util.h"

namespace tinyforge {
namespace {

using testing::RunPasses;

constexpr std::string_view kConvClamp = R"(graph t kind=int8
  input %0 x: int8[1,1,2,2] q(s=0.1, zp=3)
  const %1 w: int8[2,1,1,1] q(axis=0, s=[0.5,0.25], zp=[0,0], range=[-127,127]) = [1,-2]
  const %2 b: int32[2] q(axis=0, s=[0.05,0.025], zp=[0,0]) = [10,-20]
  %3 conv: int8[1,2,2,2] q(s=0.2, zp=-10) = qconv2d(%0, %1, %2) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], groups=1, act_min=-128, act_max=100, layout=NCHW, input_zp_folded=false}  # conv
  %4 y: int8[1,2,2,2] q(s=0.2, zp=-10) = requantize(%3) {act_min=-10, act_max=127}  # relu
  output %4
)";

// Runs both graphs on the host executor with input x and expects every output bit-equal.
void ExpectSameOutputs(std::string_view before_text, const std::string& after_text,
                       const exec::HostTensor& x) {
  auto before = ir::ParseGraph(before_text);
  auto after = ir::ParseGraph(after_text);
  ASSERT_TRUE(before.ok() && after.ok());
  auto y0 = exec::Run(*before, std::span(&x, 1));
  auto y1 = exec::Run(*after, std::span(&x, 1));
  ASSERT_TRUE(y0.ok() && y1.ok());
  ASSERT_EQ(y0->outputs.size(), y1->outputs.size());
  for (size_t k = 0; k < y0->outputs.size(); ++k) {
    EXPECT_TRUE(y0->outputs[k].BitEqual(y1->outputs[k])) << "output " << k;
  }
}

TEST(FuseActivation, ClampMergesIntoProducerRange) {
  EXPECT_EQ(RunPasses(kConvClamp, "fuse-activation"), R"(graph t kind=int8
  input %0 x: int8[1,1,2,2] q(s=0.1, zp=3)
  const %1 w: int8[2,1,1,1] q(axis=0, s=[0.5,0.25], zp=[0,0], range=[-127,127]) = [1,-2]
  const %2 b: int32[2] q(axis=0, s=[0.05,0.025], zp=[0,0]) = [10,-20]
  %3 y: int8[1,2,2,2] q(s=0.2, zp=-10) = qconv2d(%0, %1, %2) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], groups=1, act_min=-10, act_max=100, layout=NCHW, input_zp_folded=false}  # conv
  output %3
)");
}

TEST(FuseActivation, NotWhenTheInputHasOtherReadersOrTheScaleChanges) {
  std::string shared(kConvClamp);
  shared.replace(shared.find("  output %4"), 11, "  output %4, %3");
  const std::string kept = RunPasses(shared, "fuse-activation");
  EXPECT_NE(kept.find("= requantize(%3)"), std::string::npos) << kept;
  std::string rescaled(kConvClamp);
  rescaled.replace(rescaled.find("%4 y: int8[1,2,2,2] q(s=0.2"), 27, "%4 y: int8[1,2,2,2] q(s=0.4");
  const std::string kept2 = RunPasses(rescaled, "fuse-activation");
  EXPECT_NE(kept2.find("= requantize(%3)"), std::string::npos) << kept2;
}

TEST(ComputeMultipliers, PerChannelQ31WithTflmRounding) {
  // in 0.1 * w 0.5 / out 0.2 = 0.25 = 2^30 * 2^(-1-31+... ) -> (1073741824, -1);
  // 0.1 * 0.25 / 0.2 = 0.125 -> (1073741824, -2). The clamp: 0.2 / 0.2 = 1 -> (2^30, 1).
  EXPECT_EQ(RunPasses(kConvClamp, "compute-multipliers"), R"(graph t kind=int8
  input %0 x: int8[1,1,2,2] q(s=0.1, zp=3)
  const %1 w: int8[2,1,1,1] q(axis=0, s=[0.5,0.25], zp=[0,0], range=[-127,127]) = [1,-2]
  const %2 b: int32[2] q(axis=0, s=[0.05,0.025], zp=[0,0]) = [10,-20]
  const %5 conv.multiplier: int32[2] = [1073741824,1073741824]
  const %6 conv.shift: int32[2] = [-1,-2]
  const %7 relu.multiplier: int32[1] = [1073741824]
  const %8 relu.shift: int32[1] = [1]
  %3 conv: int8[1,2,2,2] q(s=0.2, zp=-10) = qconv2d(%0, %1, %2, %5, %6) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], groups=1, act_min=-128, act_max=100, layout=NCHW, input_zp_folded=false}  # conv
  %4 y: int8[1,2,2,2] q(s=0.2, zp=-10) = requantize(%3, %7, %8) {act_min=-10, act_max=127}  # relu
  output %4
)");
}

TEST(PrecomputeBias, FoldsInputOffsetTimesWeightSumsWithoutPadding) {
  // bias'[o] = bias[o] - zp * sum(w[o]) = 10 - 3*1, -20 - 3*(-2).
  const std::string out = RunPasses(kConvClamp, "precompute-bias");
  EXPECT_NE(out.find("const %2 b: int32[2] q(axis=0, s=[0.05,0.025], zp=[0,0]) = [7,-14]"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("input_zp_folded=true"), std::string::npos) << out;
  std::string padded(kConvClamp);
  padded.replace(padded.find("[1,2,2,2] q(s=0.2, zp=-10) = qconv2d"), 9, "[1,2,4,4]");
  padded.replace(padded.find("padding=[0,0,0,0]"), 17, "padding=[1,1,1,1]");
  padded.replace(padded.find("%4 y: int8[1,2,2,2]"), 19, "%4 y: int8[1,2,4,4]");
  const std::string kept = RunPasses(padded, "precompute-bias");
  EXPECT_NE(kept.find("= [10,-20]"), std::string::npos) << kept;
  EXPECT_NE(kept.find("input_zp_folded=false"), std::string::npos) << kept;
}

// OIHW [3,2,1,2] -> OHWI [3,1,2,2]; the NHWC output is flattened in NCHW order, so a real
// transpose stays in front of the reshape.
constexpr std::string_view kConvFlatten = R"(graph t kind=int8
  input %0 x: int8[1,2,2,2] q(s=0.1, zp=0)
  const %1 w: int8[3,2,1,2] q(axis=0, s=[0.1,0.1,0.1], zp=[0,0,0], range=[-127,127]) = [1,2,3,4,5,6,7,8,9,10,11,12]
  const %2 b: int32[3] = [0,0,0]
  %3 y: int8[1,3,2,1] q(s=0.5, zp=0) = qconv2d(%0, %1, %2) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], groups=1, act_min=-128, act_max=127, layout=NCHW, input_zp_folded=false}  # conv
  %4 f: int8[1,6] q(s=0.5, zp=0) = reshape(%3) {shape=[1,6]}  # flat
  output %4
)";

TEST(Layout, WeightsToOhwiAndOrderDependentOpsWrapped) {
  EXPECT_EQ(RunPasses(kConvFlatten, "layout,remove-noops"), R"(graph t kind=int8 layout=NHWC io_layout=NHWC
  input %0 x: int8[1,2,2,2] q(s=0.1, zp=0)
  const %1 w: int8[3,1,2,2] q(axis=0, s=[0.1,0.1,0.1], zp=[0,0,0], range=[-127,127]) = [1,3,2,4,5,7,6,8,9,11,10,12]
  const %2 b: int32[3] = [0,0,0]
  %3 y: int8[1,2,1,3] q(s=0.5, zp=0) = qconv2d(%0, %1, %2) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], groups=1, act_min=-128, act_max=127, layout=NHWC, input_zp_folded=false}  # conv
  %5 y.nchw: int8[1,3,2,1] q(s=0.5, zp=0) = transpose(%3) {perm=[0,3,1,2]}  # flat.to_nchw
  %4 f: int8[1,6] q(s=0.5, zp=0) = reshape(%5) {shape=[1,6]}  # flat
  output %4
)");
}

TEST(Layout, DepthwiseTo1HwcAndNchwIoGetsEdgeTransposes) {
  const std::string text = R"(graph t kind=int8
  input %0 x: int8[1,2,2,2] q(s=0.1, zp=0)
  const %1 w: int8[2,1,1,2] q(axis=0, s=[0.1,0.2], zp=[0,0], range=[-127,127]) = [1,2,3,4]
  const %2 b: int32[2] = [0,0]
  %3 y: int8[1,2,2,1] q(s=0.5, zp=0) = qdwconv2d(%0, %1, %2) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], depth_multiplier=1, act_min=-128, act_max=127, layout=NCHW, input_zp_folded=false}  # dw
  output %3
)";
  passes::PassOptions nchw_io;
  nchw_io.io_layout = ir::Layout::kNCHW;
  EXPECT_EQ(RunPasses(text, "layout,remove-noops", nchw_io), R"(graph t kind=int8 layout=NHWC io_layout=NCHW
  input %0 x: int8[1,2,2,2] q(s=0.1, zp=0)
  const %1 w: int8[1,1,2,2] q(axis=3, s=[0.1,0.2], zp=[0,0], range=[-127,127]) = [1,3,2,4]
  const %2 b: int32[2] = [0,0]
  %4 x.nhwc: int8[1,2,2,2] q(s=0.1, zp=0) = transpose(%0) {perm=[0,2,3,1]}  # dw.to_nhwc
  %5 y.nhwc: int8[1,2,1,2] q(s=0.5, zp=0) = qdwconv2d(%4, %1, %2) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], depth_multiplier=1, act_min=-128, act_max=127, layout=NHWC, input_zp_folded=false}  # dw
  %3 y: int8[1,2,2,1] q(s=0.5, zp=0) = transpose(%5) {perm=[0,3,1,2]}  # dw.to_nchw
  output %3
)");
}

TEST(RemoveNoops, SizeOneTransposesBecomeViewsAndChainsCollapse) {
  const std::string text = R"(graph t kind=int8
  input %0 x: int8[1,1,1,4] q(s=0.1, zp=0)
  %1 a: int8[1,4,1,1] q(s=0.1, zp=0) = transpose(%0) {perm=[0,3,1,2]}  # t
  %2 b: int8[1,4] q(s=0.1, zp=0) = reshape(%1) {shape=[1,-1]}  # r
  %3 c: int8[1,4] q(s=0.1, zp=0) = requantize(%2) {act_min=-128, act_max=127}  # identity
  output %3
)";
  EXPECT_EQ(RunPasses(text, "remove-noops"), R"(graph t kind=int8
  input %0 x: int8[1,1,1,4] q(s=0.1, zp=0)
  %1 c: int8[1,4] q(s=0.1, zp=0) = reshape(%0) {shape=[1,4]}  # r
  output %1
)");
}

TEST(Layout, SoftmaxAxisMovesLastAndTwoTransposesKeepTheirOutputShape) {
  struct Case {
    const char* passes;
    const char* in;
    const char* out;
  };
  const Case cases[] = {
      // The kernels run over the innermost dim: axis 1 moves last and back (rank 3: no NHWC).
      {"layout,remove-noops", R"(graph t kind=int8
  input %0 x: int8[2,3,4] q(s=0.1, zp=0)
  %1 y: int8[2,3,4] q(s=0.00390625, zp=-128) = qsoftmax(%0) {axis=1}  # sm
  output %1
)",
       R"(graph t kind=int8 layout=NHWC io_layout=NHWC
  input %0 x: int8[2,3,4] q(s=0.1, zp=0)
  %2 x.axis_last: int8[2,4,3] q(s=0.1, zp=0) = transpose(%0) {perm=[0,2,1]}  # sm.axis_last
  %3 y.axis_last: int8[2,4,3] q(s=0.00390625, zp=-128) = qsoftmax(%2) {axis=2}  # sm
  %1 y: int8[2,3,4] q(s=0.00390625, zp=-128) = transpose(%3) {perm=[0,2,1]}  # sm.axis_back
  output %1
)"},
      // A chain of two transposes only composes them: its output keeps its rank-4 shape
      // (the chain rewrite wrote it in the merged shape, rank 3, under the qsoftmax).
      {"remove-noops", R"(graph t kind=int8
  input %0 x: int8[1,2,3,4] q(s=0.1, zp=0)
  %1 a: int8[1,3,4,2] q(s=0.1, zp=0) = transpose(%0) {perm=[0,2,3,1]}  # t1
  %2 b: int8[1,3,2,4] q(s=0.1, zp=0) = transpose(%1) {perm=[0,1,3,2]}  # t2
  %3 y: int8[1,3,2,4] q(s=0.00390625, zp=-128) = qsoftmax(%2) {axis=3}  # sm
  output %3
)",
       R"(graph t kind=int8
  input %0 x: int8[1,2,3,4] q(s=0.1, zp=0)
  %1 b: int8[1,3,2,4] q(s=0.1, zp=0) = transpose(%0) {perm=[0,2,1,3]}  # t2
  %2 y: int8[1,3,2,4] q(s=0.00390625, zp=-128) = qsoftmax(%1) {axis=3}  # sm
  output %2
)"},
  };
  for (const Case& c : cases) EXPECT_EQ(RunPasses(c.in, c.passes), c.out) << c.passes;
}

TEST(RemoveNoops, QbmmReadsATransposedOperandAsStored) {
  // y^T (last two dims swapped) feeds qbmm only: qbmm reads y with adj_y; x^T with adj_x.
  const std::string text = R"(graph t kind=int8
  input %0 x: int8[2,8,4] q(s=0.1, zp=3)
  input %1 y: int8[2,6,8] q(s=0.2, zp=-1)
  %2 xt: int8[2,4,8] q(s=0.1, zp=3) = transpose(%0) {perm=[0,2,1]}  # tx
  %3 yt: int8[2,8,6] q(s=0.2, zp=-1) = transpose(%1) {perm=[0,2,1]}  # ty
  %4 z: int8[2,4,6] q(s=0.5, zp=0) = qbmm(%2, %3) {adj_x=false, adj_y=false, act_min=-128, act_max=127}  # mm
  output %4
)";
  EXPECT_EQ(RunPasses(text, "remove-noops"), R"(graph t kind=int8
  input %0 x: int8[2,8,4] q(s=0.1, zp=3)
  input %1 y: int8[2,6,8] q(s=0.2, zp=-1)
  %2 z: int8[2,4,6] q(s=0.5, zp=0) = qbmm(%0, %1) {adj_x=true, adj_y=true, act_min=-128, act_max=127}  # mm
  output %2
)");
}

TEST(Dce, RemovesUnreadOpsAndTensors) {
  const std::string text = R"(graph t kind=int8
  input %0 x: int8[4] q(s=0.1, zp=0)
  const %1 unused: int32[1] = [5]
  %2 dead: int8[4] q(s=0.2, zp=0) = requantize(%0) {act_min=-128, act_max=127}  # dead
  %3 y: int8[4] q(s=0.1, zp=0) = requantize(%0) {act_min=0, act_max=127}  # relu
  output %3
)";
  EXPECT_EQ(RunPasses(text, "dce"), R"(graph t kind=int8
  input %0 x: int8[4] q(s=0.1, zp=0)
  %1 y: int8[4] q(s=0.1, zp=0) = requantize(%0) {act_min=0, act_max=127}  # relu
  output %1
)");
}

// groups=2 on NHWC [1,2,2,4]: filters OHWI [4,1,1,2] (2 input channels each), two output
// channels per group; per-channel multipliers stored (as the .tflite importer stores them).
constexpr std::string_view kGroupedConv = R"(graph t kind=int8 layout=NHWC io_layout=NHWC
  input %0 x: int8[1,2,2,4] q(s=0.1, zp=3)
  const %1 w: int8[4,1,1,2] q(axis=0, s=[0.5,0.25,0.5,0.125], zp=[0,0,0,0], range=[-127,127]) = [1,-2,3,4,-5,6,7,-8]
  const %2 b: int32[4] q(axis=0, s=[0.05,0.025,0.05,0.0125], zp=[0,0,0,0]) = [10,-20,30,-40]
  const %4 m: int32[4] = [1073741824,1073741824,1073741824,1073741824]
  const %5 s: int32[4] = [-1,-2,-1,-3]
  %3 y: int8[1,2,2,4] q(s=0.2, zp=-10) = qconv2d(%0, %1, %2, %4, %5) {stride=[1,1], padding=[0,0,0,0], dilation=[1,1], groups=2, act_min=-128, act_max=127, layout=NHWC, input_zp_folded=false}  # conv
  output %3
)";

TEST(SplitGroups, PerGroupSliceConvAndConcatComputeTheSameValues) {
  const std::string out = RunPasses(kGroupedConv, "split-groups,dce");
  EXPECT_EQ(out.find("groups=2"), std::string::npos) << out;
  EXPECT_NE(out.find("slice(%0) {begin=[0,0,0,2], end=[1,2,2,4]"), std::string::npos) << out;
  EXPECT_NE(out.find("= [30,-40]"), std::string::npos) << out;        // group 1's bias
  EXPECT_NE(out.find("= [-1,-3]"), std::string::npos) << out;         // group 1's shifts
  EXPECT_NE(out.find("= qconcat("), std::string::npos) << out;
  const exec::HostTensor x =
      exec::HostTensor::Int8({1, 2, 2, 4}, {-128, -7, 0, 5, 127, 64, -64, 3, 9, -9, 100, -100,
                                            1, 2, 3, 4});
  ExpectSameOutputs(kGroupedConv, out, x);
}

TEST(RemoveNoops, SliceOfSliceIsOneSlice) {
  constexpr std::string_view kTwo = R"(graph t kind=int8 layout=NHWC io_layout=NHWC
  input %0 x: int8[1,6,7,2] q(s=0.1, zp=3)
  %1 r: int8[1,4,7,2] q(s=0.1, zp=3) = slice(%0) {begin=[0,1,0,0], end=[1,5,7,2], stride=[1,1,1,1]}  # rows
  %2 y: int8[1,2,3,2] q(s=0.1, zp=3) = slice(%1) {begin=[0,1,1,0], end=[1,4,7,2], stride=[1,2,2,1]}  # cols
  output %2
)";
  const std::string out = RunPasses(kTwo, "remove-noops");
  EXPECT_NE(out.find("= slice(%0) {begin=[0,2,1,0], end=[1,5,6,2], stride=[1,2,2,1]}"),
            std::string::npos) << out;
  EXPECT_EQ(out.find("%1 r"), std::string::npos) << out;
  std::vector<int8_t> v(84);
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<int8_t>(k * 7 - 100);
  const exec::HostTensor x = exec::HostTensor::Int8({1, 6, 7, 2}, v);
  ExpectSameOutputs(kTwo, out, x);
}

// A recurrent layer's stacked outputs and a slice of them: the slice reads the concat input
// it falls in (directly, or through a reshape view taking exactly one input), the concat dies
// with no other reader; a slice straddling two inputs keeps it. Same values before and after.
TEST(RemoveNoops, SliceOfConcatReadsTheInputItFallsIn) {
  constexpr std::string_view kStacked = R"(graph t kind=int8 layout=NHWC io_layout=NHWC
  input %0 x: int8[3,4] q(s=0.1, zp=3)
  %1 a: int8[1,4] q(s=0.1, zp=3) = slice(%0) {begin=[0,0], end=[1,4], stride=[1,1]}
  %2 b: int8[1,4] q(s=0.1, zp=3) = slice(%0) {begin=[2,0], end=[3,4], stride=[1,1]}
  %3 c: int8[1,4] q(s=0.1, zp=3) = slice(%0) {begin=[1,0], end=[2,4], stride=[1,1]}
  %4 s: int8[3,4] q(s=0.1, zp=3) = qconcat(%1, %2, %3) {axis=0}
  %5 v: int8[1,3,4] q(s=0.1, zp=3) = reshape(%4) {shape=[1,3,4]}
  %6 last: int8[1,1,4] q(s=0.1, zp=3) = slice(%5) {begin=[0,2,0], end=[1,3,4], stride=[1,1,1]}
  %7 mid: int8[1,2] q(s=0.1, zp=3) = slice(%4) {begin=[1,1], end=[2,3], stride=[1,1]}
  output %6
  output %7
)";
  const std::string out = RunPasses(kStacked, "remove-noops");
  EXPECT_EQ(out.find("qconcat"), std::string::npos) << out;
  // The last step is c (x's row 1) viewed; mid is b's (x's row 2) columns 1-2, the slice of
  // a slice folded too.
  EXPECT_NE(out.find("%1 c: int8[1,4] q(s=0.1, zp=3) = slice(%0) {begin=[1,0]"),
            std::string::npos) << out;
  EXPECT_NE(out.find("last: int8[1,1,4] q(s=0.1, zp=3) = reshape(%1)"), std::string::npos)
      << out;
  EXPECT_NE(out.find("mid: int8[1,2] q(s=0.1, zp=3) = slice(%0) {begin=[2,1], end=[3,3]"),
            std::string::npos) << out;
  std::vector<int8_t> v(12);
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<int8_t>(k * 19 - 90);
  const exec::HostTensor x = exec::HostTensor::Int8({3, 4}, v);
  ExpectSameOutputs(kStacked, out, x);
  // Straddling the first two inputs: the concat stays.
  std::string straddle(kStacked);
  straddle.replace(straddle.find("begin=[1,1], end=[2,3]"), 22, "begin=[0,1], end=[2,3]");
  straddle.replace(straddle.find("%7 mid: int8[1,2]"), 17, "%7 mid: int8[2,2]");
  EXPECT_NE(RunPasses(straddle, "remove-noops").find("qconcat"), std::string::npos);
  // A constant input (an initial state) is not read by a slice: the concat stays.
  constexpr std::string_view kConstFirst = R"(graph t kind=int8 layout=NHWC io_layout=NHWC
  input %0 x: int8[1,4] q(s=0.1, zp=3)
  const %1 h0: int8[1,4] q(s=0.1, zp=3) = [1,2,3,4]
  %2 s: int8[2,4] q(s=0.1, zp=3) = qconcat(%1, %0) {axis=0}
  %3 y: int8[1,4] q(s=0.1, zp=3) = slice(%2) {begin=[0,0], end=[1,4], stride=[1,1]}
  output %3
)";
  EXPECT_NE(RunPasses(kConstFirst, "remove-noops").find("qconcat"), std::string::npos);
}

// A qconcat of n one-row slices of x [n, 3] in reverse row order: y is x upside down.
std::string ReversedRowsConcat(int n) {
  const std::string q = " q(s=0.1, zp=3)";
  std::string t = "graph t kind=int8\n  input %0 x: int8[" + std::to_string(n) + ",3]" + q + "\n";
  std::string ins;
  for (int i = 0; i < n; ++i) {
    const int row = n - 1 - i;
    t += "  %" + std::to_string(i + 1) + " s" + std::to_string(i) + ": int8[1,3]" + q +
         " = slice(%0) {begin=[" + std::to_string(row) + ",0], end=[" +
         std::to_string(row + 1) + ",3], stride=[1,1]}\n";
    ins += (i ? ", %" : "%") + std::to_string(i + 1);
  }
  t += "  %" + std::to_string(n + 1) + " y: int8[" + std::to_string(n) + ",3]" + q +
       " = qconcat(" + ins + ") {axis=0}  # cat\n  output %" + std::to_string(n + 1) + "\n";
  return t;
}

TEST(SplitConcat, LongConcatsBecomeTreesOfAtMost16Inputs) {
  // 25 inputs: one partial of the first 10, then 1 + 15; 300: two levels.
  const std::pair<int, int> kCases[] = {{16, 0}, {17, 1}, {25, 1}, {256, 16}, {300, 20}};
  for (const auto& [n, partials] : kCases) {
    const std::string out = RunPasses(ReversedRowsConcat(n), "split-concat,dce");
    int concats = 0;
    size_t inputs = 0;
    for (size_t at = out.find("= qconcat("); at != std::string::npos;
         at = out.find("= qconcat(", at + 1)) {
      const std::string args = out.substr(at, out.find(')', at) - at);
      const size_t k = static_cast<size_t>(std::count(args.begin(), args.end(), '%'));
      EXPECT_LE(k, 16u) << n << ": " << args;
      inputs += k;
      ++concats;
    }
    EXPECT_EQ(concats, partials + 1) << out;
    EXPECT_EQ(inputs, static_cast<size_t>(n + partials)) << out;  // each partial read once
    std::vector<int8_t> v(static_cast<size_t>(3 * n)), want(v.size());
    for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<int8_t>(k * 37 + 11);
    for (int r = 0; r < n; ++r) {
      std::copy_n(v.begin() + 3 * r, 3, want.begin() + 3 * (n - 1 - r));
    }
    const exec::HostTensor x = exec::HostTensor::Int8({n, 3}, v);
    auto g = ir::ParseGraph(out);
    ASSERT_TRUE(g.ok()) << out;
    auto y = exec::Run(*g, std::span(&x, 1));
    ASSERT_TRUE(y.ok()) << y.error().message();
    const auto got = y->outputs[0].i8();
    EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin(), want.end())) << n;
  }
}

// docs/passes.md's pipeline table is registry.cc's list: same passes, order and text.
TEST(Pipeline, DocsTableIsTheRegistry) {
  std::ifstream doc(TF_SOURCE_DIR "/docs/passes.md");
  ASSERT_TRUE(doc.good());
  std::vector<std::string> rows;
  for (std::string line; std::getline(doc, line);) {
    if (line.size() > 2 && line.rfind("| ", 0) == 0 && line[2] >= '1' && line[2] <= '9') {
      rows.push_back(line);
    }
  }
  std::vector<std::string> expected;
  int n = 0;
  for (const passes::PassInfo& p : passes::AllPasses()) {
    expected.push_back("| " + std::to_string(++n) + " | `" + std::string(p.name) + "` | " +
                       std::string(p.guarantees) + " | " + std::string(p.why_here) + " |");
  }
  EXPECT_EQ(rows, expected) << "copy compiler/passes/registry.cc's list into docs/passes.md";
}

TEST(Pipeline, NamesAndErrors) {
  ASSERT_EQ(passes::DefaultPipeline().size(), passes::AllPasses().size());
  for (size_t i = 0; i < passes::AllPasses().size(); ++i) {
    EXPECT_EQ(passes::DefaultPipeline()[i], passes::AllPasses()[i].name);  // one list
  }
  auto bad = passes::ParsePassList("fold-qdq,bogus");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message().rfind("unknown pass 'bogus' (passes: const-fold, ", 0), 0u);
  EXPECT_NE(RunPasses(kConvClamp, "layout").find("layout=NHWC"), std::string::npos);
  const std::string qdq = "graph q kind=qdq\n  input %0 x: float32[2]\n  output %0\n";
  EXPECT_EQ(RunPasses(qdq, "layout"),
            "error: pass 'layout': needs a lowered graph (kind int8): run fold-qdq first");
}

// Lowers `text` (x: float32[256] -> ... -> int8 of scale 0.05, zero point 3 -> ...) with
// fold-qdq, then with fold-qdq,fuse-activation: fuse-activation leaves no requantize, a qlut
// (also before it when `lut_before`), and the executor's values for all 256 int8 inputs
// are the same both times.
void ExpectFusionKeepsValues(std::string_view text, bool lut_before) {
  std::vector<float> xs(256);
  for (int i = 0; i < 256; ++i) xs[static_cast<size_t>(i)] = 0.05f * static_cast<float>(i - 128 - 3);
  const exec::HostTensor x = exec::HostTensor::Float({256}, xs);
  std::optional<exec::HostTensor> before;
  for (const char* passes : {"fold-qdq", "fold-qdq,fuse-activation"}) {
    auto g = ir::ParseGraph(text);
    ASSERT_TRUE(g.ok()) << g.error().message();
    passes::LowerOptions o;
    o.io = passes::IoType::kFloat;
    o.verify_each = true;
    o.passes = *passes::ParsePassList(passes);
    ASSERT_TRUE(passes::Lower(*g, o).ok());
    const std::string printed = ir::PrintGraph(*g, testing::WholeGraph());
    const bool fused = std::string_view(passes).find("fuse") != std::string_view::npos;
    EXPECT_EQ(printed.find("requantize(") == std::string::npos, fused) << printed;
    EXPECT_EQ(printed.find("qlut(") != std::string::npos, fused || lut_before) << printed;
    auto y = exec::Run(*g, std::span(&x, 1));
    ASSERT_TRUE(y.ok()) << y.error().message();
    if (!before) {
      before = y->outputs[0];
    } else {
      EXPECT_TRUE(before->BitEqual(y->outputs[0]));
    }
  }
}

// A sigmoid table keeps TFLite's fixed output parameters (1/256, -128) and fold-qdq adds a
// requantize to the graph's; fuse-activation composes it into the table.
TEST(FuseActivation, RequantizeAfterATableComposesIntoIt) {
  constexpr std::string_view kGate = R"(graph t kind=qdq
  input %0 x: float32[256]
  %1 x.q: int8[256] q(s=0.05, zp=3) = quantize(%0)  # x.q
  %2 x.q.dq: float32[256] = dequantize(%1)  # x.q.dq
  %3 s: float32[256] = sigmoid(%2)  # gate
  %4 s.q: int8[256] q(s=0.0025, zp=-128) = quantize(%3)  # s.q
  %5 s.q.dq: float32[256] = dequantize(%4)  # s.q.dq
  output %5
)";
  ExpectFusionKeepsValues(kGate, true);
}

// A requantize over 256 or more elements runs as a table.
TEST(FuseActivation, LargeRequantizeBecomesATable) {
  constexpr std::string_view kRescale = R"(graph t kind=qdq
  input %0 x: float32[256]
  %1 x.q: int8[256] q(s=0.05, zp=3) = quantize(%0)  # x.q
  %2 x.q.dq: float32[256] = dequantize(%1)  # x.q.dq
  %3 y.q: int8[256] q(s=0.0731, zp=-17) = quantize(%2)  # y.q
  %4 y.q.dq: float32[256] = dequantize(%3)  # y.q.dq
  output %4
)";
  ExpectFusionKeepsValues(kRescale, false);
}

// Every prefix of the pipeline runs on the executor to the same values as the whole
// pipeline: stages differ in representation, never in arithmetic.
TEST(Pipeline, EveryStageComputesTheSameValues) {
  const exec::HostTensor x = testing::QdqConvInput();
  std::optional<exec::HostTensor> first;
  const auto names = passes::DefaultPipeline();
  for (size_t n = 2; n <= names.size(); ++n) {  // from fold-qdq on (before it: float ops)
    ir::Graph g = testing::QdqConvGraph();
    passes::LowerOptions o;
    o.io = passes::IoType::kFloat;
    o.io_layout = ir::Layout::kNCHW;
    o.verify_each = true;
    o.passes.assign(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(n));
    auto runs = passes::Lower(g, o);
    ASSERT_TRUE(runs.ok()) << runs.error().message();
    auto y = exec::Run(g, std::span(&x, 1));
    ASSERT_TRUE(y.ok()) << names[n - 1] << ": " << y.error().message();
    if (!first) first = y->outputs[0];
    EXPECT_TRUE(first->BitEqual(y->outputs[0])) << "after " << names[n - 1];
  }
}

}  // namespace
}  // namespace tinyforge
