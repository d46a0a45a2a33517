// Shape inference against PyTorch's formulas, computed by hand in each test:
//   conv: floor((in + pad_b + pad_a - dil*(k-1) - 1) / stride) + 1
//   pool: the same, rounded up with ceil_mode, minus one if the last window would start
//         past the input and the leading padding.
#include <gtest/gtest.h>

#include "ir/shape_inference.h"

namespace tinyforge::ir {
namespace {

Shape Infer(OpType type, const Attrs& attrs, std::vector<Shape> in) {
  auto r = InferShapes(type, attrs, in);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
  return r.ok() ? (*r)[0] : Shape{};
}

std::string InferError(OpType type, const Attrs& attrs, std::vector<Shape> in) {
  auto r = InferShapes(type, attrs, in);
  return r.ok() ? "ok" : r.error().message();
}

TEST(ShapeInference, Conv2dAsymmetricPaddingStrideDilationGroups) {
  Conv2dAttrs a;
  a.stride = {2, 3};
  a.padding = {1, 0, 2, 1};  // top, left, bottom, right
  a.dilation = {2, 1};
  a.groups = 2;
  // H: (10 + 1 + 2 - 2*(3-1) - 1) / 2 + 1 = 8/2 + 1 = 5
  // W: (7 + 0 + 1 - 1*(2-1) - 1) / 3 + 1 = 6/3 + 1 = 3
  EXPECT_EQ(Infer(OpType::kConv2d, a, {{1, 4, 10, 7}, {6, 2, 3, 2}, {6}}), (Shape{1, 6, 5, 3}));
  // Floor: H = (11 + 3 - 4 - 1) / 2 + 1 = floor(9/2) + 1 = 5.
  EXPECT_EQ(Infer(OpType::kConv2d, a, {{1, 4, 11, 7}, {6, 2, 3, 2}}), (Shape{1, 6, 5, 3}));
}

TEST(ShapeInference, Conv2dDepthwiseAndDsCnnFirstLayer) {
  Conv2dAttrs dw;
  dw.groups = 8;
  dw.padding = {1, 1, 1, 1};
  EXPECT_EQ(Infer(OpType::kConv2d, dw, {{1, 8, 5, 5}, {16, 1, 3, 3}}), (Shape{1, 16, 5, 5}));
  // DS-CNN: x [1,1,49,10], w [64,1,10,4], stride 2, padding [5,1,4,2] (the format doc's
  // example): H = (49+9-9-1)/2+1 = 25, W = (10+3-3-1)/2+1 = 5.
  Conv2dAttrs a;
  a.stride = {2, 2};
  a.padding = {5, 1, 4, 2};
  EXPECT_EQ(Infer(OpType::kConv2d, a, {{1, 1, 49, 10}, {64, 1, 10, 4}, {64}}),
            (Shape{1, 64, 25, 5}));
}

TEST(ShapeInference, Conv2dErrorsNameTheField) {
  Conv2dAttrs a;
  a.groups = 3;
  EXPECT_NE(InferError(OpType::kConv2d, a, {{1, 4, 5, 5}, {6, 1, 3, 3}}).find("attrs.groups"),
            std::string::npos);
  a.groups = 1;
  EXPECT_NE(InferError(OpType::kConv2d, a, {{1, 4, 5, 5}, {6, 2, 3, 3}}).find("inputs[1]"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kConv2d, a, {{1, 4, 5, 5}, {6, 4, 3, 3}, {5}}).find("inputs[2]"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kConv2d, a, {{1, 4, 2, 2}, {6, 4, 3, 3}}).find("does not fit"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kConv2d, a, {{4, 5, 5}, {6, 4, 3, 3}}).find("inputs[0]"),
            std::string::npos);
  a.stride = {0, 1};
  EXPECT_NE(InferError(OpType::kConv2d, a, {{1, 4, 5, 5}, {6, 4, 3, 3}}).find("attrs.stride"),
            std::string::npos);
  a.stride = {1, 1};
  a.padding = {0, -1, 0, 0};
  EXPECT_NE(InferError(OpType::kConv2d, a, {{1, 4, 5, 5}, {6, 4, 3, 3}}).find("attrs.padding"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kConv2d, Conv2dAttrs{}, {{1, 4, 5, 5}}).find("takes 2 to 3"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kConv2d, NoAttrs{}, {{1, 4, 5, 5}, {6, 4, 3, 3}}).find("attrs"),
            std::string::npos);
}

TEST(ShapeInference, PoolOutputSizeMatchesPyTorch) {
  // in 5, k 3, s 2, p 1: floor((5+2-2-1)/2)+1 = 3; ceil: ceil(4/2)+1 = 3.
  EXPECT_EQ(PoolOutputSize(5, 3, 1, 1, 2, 1, false), 3);
  EXPECT_EQ(PoolOutputSize(5, 3, 1, 1, 2, 1, true), 3);
  // in 6: floor(5/2)+1 = 3; ceil: ceil(5/2)+1 = 4; last window starts at 3*2=6 < 6+1: kept.
  EXPECT_EQ(PoolOutputSize(6, 3, 1, 1, 2, 1, false), 3);
  EXPECT_EQ(PoolOutputSize(6, 3, 1, 1, 2, 1, true), 4);
  // in 5, k 2, s 2, p 1, ceil: ceil((5+2-1-1)/2)+1 = 4, but window 3 would start at
  // 3*2 = 6 >= 5+1: dropped -> 3 (PyTorch gives 3).
  EXPECT_EQ(PoolOutputSize(5, 2, 1, 1, 2, 1, true), 3);
  // in 3, k 2, s 2, ceil: ceil(1/2)+1 = 2 (the partial window at 2 starts inside).
  EXPECT_EQ(PoolOutputSize(3, 2, 0, 0, 2, 1, true), 2);
  EXPECT_EQ(PoolOutputSize(3, 2, 0, 0, 2, 1, false), 1);
  // dilation 2, k 3: effective 5; in 7, s 1: 7-5+1 = 3.
  EXPECT_EQ(PoolOutputSize(7, 3, 0, 0, 1, 2, false), 3);
  EXPECT_EQ(ConvOutputSize(2, 3, 0, 0, 1, 1), 0);  // no valid output
}

TEST(ShapeInference, MaxAndAvgPool) {
  MaxPool2dAttrs mp;
  mp.kernel = {3, 3};
  mp.stride = {2, 2};
  mp.padding = {1, 1, 1, 1};
  mp.ceil_mode = true;
  EXPECT_EQ(Infer(OpType::kMaxPool2d, mp, {{1, 4, 6, 5}}), (Shape{1, 4, 4, 3}));
  EXPECT_EQ(Infer(OpType::kMaxPool2d, mp, {{4, 6, 5}}), (Shape{4, 4, 3}));  // [C,H,W]
  AvgPool2dAttrs ap;
  ap.kernel = {2, 2};
  ap.stride = {2, 2};
  ap.ceil_mode = true;
  EXPECT_EQ(Infer(OpType::kAvgPool2d, ap, {{1, 1, 3, 3}}), (Shape{1, 1, 2, 2}));
  ap.ceil_mode = false;
  EXPECT_EQ(Infer(OpType::kAvgPool2d, ap, {{1, 1, 3, 3}}), (Shape{1, 1, 1, 1}));
}

TEST(ShapeInference, PoolRejectsWhatPyTorchRejects) {
  MaxPool2dAttrs mp;
  mp.kernel = {3, 3};
  mp.padding = {2, 0, 0, 0};  // pad 2 > 3/2
  EXPECT_NE(InferError(OpType::kMaxPool2d, mp, {{1, 1, 8, 8}}).find("attrs.padding"),
            std::string::npos);
  AvgPool2dAttrs ap;
  ap.kernel = {2, 2};
  ap.divisor_override = -1;
  EXPECT_NE(InferError(OpType::kAvgPool2d, ap, {{1, 1, 8, 8}}).find("attrs.divisor_override"),
            std::string::npos);
  ap.divisor_override = 0;
  ap.kernel = {5, 5};
  EXPECT_NE(InferError(OpType::kAvgPool2d, ap, {{1, 1, 4, 4}}).find("does not fit"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kAvgPool2d, AvgPool2dAttrs{}, {{4, 4}}).find("inputs[0]"),
            std::string::npos);
}

TEST(ShapeInference, MeanDimsKeepdimAndNegative) {
  EXPECT_EQ(Infer(OpType::kMean, MeanAttrs{{2, 3}, true}, {{1, 8, 5, 5}}), (Shape{1, 8, 1, 1}));
  EXPECT_EQ(Infer(OpType::kMean, MeanAttrs{{-1, -2}, false}, {{1, 8, 5, 5}}), (Shape{1, 8}));
  EXPECT_EQ(Infer(OpType::kMean, MeanAttrs{{0}, false}, {{3}}), (Shape{}));
  EXPECT_NE(InferError(OpType::kMean, MeanAttrs{{2, -2}, false}, {{1, 8, 5, 5}}).find("twice"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kMean, MeanAttrs{{4}, false}, {{1, 8, 5, 5}}).find("attrs.dims"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kMean, MeanAttrs{{}, false}, {{1, 8}}).find("empty"),
            std::string::npos);
}

TEST(ShapeInference, ReshapeWithInferredDim) {
  EXPECT_EQ(Infer(OpType::kReshape, ReshapeAttrs{{1, -1}}, {{1, 64, 5, 5}}), (Shape{1, 1600}));
  EXPECT_EQ(Infer(OpType::kReshape, ReshapeAttrs{{2, 3}}, {{6}}), (Shape{2, 3}));
  EXPECT_EQ(Infer(OpType::kReshape, ReshapeAttrs{{}}, {{1, 1}}), (Shape{}));
  EXPECT_NE(InferError(OpType::kReshape, ReshapeAttrs{{4, -1}}, {{6}}).find("cannot hold"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kReshape, ReshapeAttrs{{-1, -1}}, {{6}}).find("at most one -1"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kReshape, ReshapeAttrs{{2, 2}}, {{6}}).find("has 4 elements"),
            std::string::npos);
}

TEST(ShapeInference, CatAddSoftmaxLinear) {
  EXPECT_EQ(Infer(OpType::kCat, CatAttrs{1}, {{1, 2, 4}, {1, 3, 4}, {1, 1, 4}}), (Shape{1, 6, 4}));
  EXPECT_EQ(Infer(OpType::kCat, CatAttrs{-1}, {{2, 2}, {2, 5}}), (Shape{2, 7}));
  EXPECT_NE(InferError(OpType::kCat, CatAttrs{1}, {{1, 2, 4}, {1, 3, 5}}).find("inputs[1]"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kCat, CatAttrs{3}, {{1, 2, 4}}).find("attrs.axis"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kAdd, NoAttrs{}, {{2, 3}, {3, 2}}).find("does not broadcast"),
            std::string::npos);
  EXPECT_EQ(Infer(OpType::kAdd, NoAttrs{}, {{1, 2}, {2, 1}}), (Shape{2, 2}));
  EXPECT_EQ(Infer(OpType::kMul, NoAttrs{}, {{1, 8, 4, 4}, {1, 8, 1, 1}}), (Shape{1, 8, 4, 4}));
  EXPECT_EQ(Infer(OpType::kSub, NoAttrs{}, {{3}, {2, 1}}), (Shape{2, 3}));
  EXPECT_EQ(Infer(OpType::kMaximum, NoAttrs{}, {{1}, {2, 5}}), (Shape{2, 5}));
  EXPECT_NE(InferError(OpType::kMinimum, NoAttrs{}, {{4}, {5}}).find("does not broadcast"),
            std::string::npos);
  EXPECT_EQ(Infer(OpType::kSoftmax, SoftmaxAttrs{-1}, {{1, 12}}), (Shape{1, 12}));
  EXPECT_NE(InferError(OpType::kSoftmax, SoftmaxAttrs{2}, {{1, 12}}).find("attrs.axis"),
            std::string::npos);
  EXPECT_EQ(Infer(OpType::kLinear, NoAttrs{}, {{1, 1600}, {12, 1600}, {12}}), (Shape{1, 12}));
  EXPECT_EQ(Infer(OpType::kLinear, NoAttrs{}, {{2, 3, 8}, {4, 8}}), (Shape{2, 3, 4}));
  EXPECT_EQ(Infer(OpType::kMatmul, NoAttrs{}, {{2, 4, 8}, {8, 5}}), (Shape{2, 4, 5}));
  EXPECT_EQ(Infer(OpType::kMatmul, NoAttrs{}, {{3, 1, 4, 8}, {2, 8, 5}}), (Shape{3, 2, 4, 5}));
  EXPECT_EQ(Infer(OpType::kQBmm, QBmmAttrs{true, true, -128, 127}, {{2, 8, 4}, {2, 5, 8}}),
            (Shape{2, 4, 5}));
  EXPECT_NE(InferError(OpType::kMatmul, NoAttrs{}, {{2, 4, 8}, {2, 7, 5}}).find("inner dims"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kMatmul, NoAttrs{}, {{8}, {8, 5}}).find("rank >= 2"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kLinear, NoAttrs{}, {{1, 16}, {12, 15}}).find("inputs[1]"),
            std::string::npos);
  EXPECT_NE(InferError(OpType::kHardtanh, HardtanhAttrs{6, 0}, {{1}}).find("min <= max"),
            std::string::npos);
  EXPECT_EQ(Infer(OpType::kHardtanh, HardtanhAttrs{0, 6}, {{1, 3}}), (Shape{1, 3}));
}

}  // namespace
}  // namespace tinyforge::ir
