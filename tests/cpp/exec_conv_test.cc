// conv2d and linear reference ops on tiny inputs; every expected value is worked out by
// hand in the comment next to it.
#include <gtest/gtest.h>

#include "exec/ref_ops.h"

namespace tinyforge::exec {
namespace {

using ir::Conv2dAttrs;

std::vector<float> Iota(int n, float start = 1.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = start + static_cast<float>(i);
  return v;
}

std::vector<float> Values(const HostTensor& t) {
  return std::vector<float>(t.f32().begin(), t.f32().end());
}

TEST(RefConv2d, DiagonalKernelWithBias) {
  // x = [[1,2,3],[4,5,6],[7,8,9]], w = [[1,0],[0,1]]: y = x[i][j] + x[i+1][j+1] + 0.5.
  const HostTensor x = HostTensor::Float({1, 1, 3, 3}, Iota(9));
  const HostTensor w = HostTensor::Float({1, 1, 2, 2}, {1, 0, 0, 1});
  const HostTensor b = HostTensor::Float({1}, {0.5f});
  HostTensor y(ir::DType::kFloat32, {1, 1, 2, 2});
  Conv2d(Conv2dAttrs{}, x, w, &b, y);
  EXPECT_EQ(Values(y), (std::vector<float>{6.5f, 8.5f, 12.5f, 14.5f}));
}

TEST(RefConv2d, AsymmetricPaddingTopOnly) {
  // 2x2 ones kernel, padding top 1: rows [-1,0] -> [1+2, 2+3] = [3, 5];
  // rows [0,1] -> [1+2+4+5, 2+3+5+6] = [12, 16]; rows [1,2] -> [24, 28].
  Conv2dAttrs a;
  a.padding = {1, 0, 0, 0};
  const HostTensor x = HostTensor::Float({1, 1, 3, 3}, Iota(9));
  const HostTensor w = HostTensor::Float({1, 1, 2, 2}, {1, 1, 1, 1});
  HostTensor y(ir::DType::kFloat32, {1, 1, 3, 2});
  Conv2d(a, x, w, nullptr, y);
  EXPECT_EQ(Values(y), (std::vector<float>{3, 5, 12, 16, 24, 28}));
}

TEST(RefConv2d, SamePaddingSeesWholeImage) {
  // 3x3 ones, padding 1 on a 2x2 image: every window covers all four pixels: 1+2+3+4 = 10.
  Conv2dAttrs a;
  a.padding = {1, 1, 1, 1};
  HostTensor y(ir::DType::kFloat32, {1, 1, 2, 2});
  Conv2d(a, HostTensor::Float({1, 1, 2, 2}, Iota(4)),
         HostTensor::Float({1, 1, 3, 3}, std::vector<float>(9, 1.0f)), nullptr, y);
  EXPECT_EQ(Values(y), (std::vector<float>{10, 10, 10, 10}));
}

TEST(RefConv2d, DilationAndStride) {
  // x = [1,2,3,4,5] (1 row), w = [1,1] with dilation 2: taps j and j+2:
  // [1+3, 2+4, 3+5] = [4, 6, 8]; with stride 2 as well: outputs at j = 0, 2 -> [4, 8].
  const HostTensor x = HostTensor::Float({1, 1, 1, 5}, Iota(5));
  const HostTensor w = HostTensor::Float({1, 1, 1, 2}, {1, 1});
  Conv2dAttrs a;
  a.dilation = {1, 2};
  HostTensor y(ir::DType::kFloat32, {1, 1, 1, 3});
  Conv2d(a, x, w, nullptr, y);
  EXPECT_EQ(Values(y), (std::vector<float>{4, 6, 8}));
  a.stride = {1, 2};
  HostTensor y2(ir::DType::kFloat32, {1, 1, 1, 2});
  Conv2d(a, x, w, nullptr, y2);
  EXPECT_EQ(Values(y2), (std::vector<float>{4, 8}));
}

TEST(RefConv2d, DepthwiseGroups) {
  // groups = 2, one 1x1 filter per channel: ch0 * 2, ch1 * -1, plus bias [0, 1].
  Conv2dAttrs a;
  a.groups = 2;
  const HostTensor x = HostTensor::Float({1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40});
  const HostTensor w = HostTensor::Float({2, 1, 1, 1}, {2, -1});
  const HostTensor b = HostTensor::Float({2}, {0, 1});
  HostTensor y(ir::DType::kFloat32, {1, 2, 2, 2});
  Conv2d(a, x, w, &b, y);
  EXPECT_EQ(Values(y), (std::vector<float>{2, 4, 6, 8, -9, -19, -29, -39}));
}

TEST(RefConv2d, GroupedWithTwoChannelsPerGroupAndBatch) {
  // groups = 2, C = 4, O = 2: output 0 sums channels 0,1; output 1 sums channels 2,3
  // (1x1 kernels of ones). Batch 2: second image is the first times 10.
  Conv2dAttrs a;
  a.groups = 2;
  std::vector<float> img = {1, 2, 3, 4};  // one pixel per channel
  std::vector<float> xs = img;
  for (float v : img) xs.push_back(v * 10);
  const HostTensor x = HostTensor::Float({2, 4, 1, 1}, xs);
  const HostTensor w = HostTensor::Float({2, 2, 1, 1}, {1, 1, 1, 1});
  HostTensor y(ir::DType::kFloat32, {2, 2, 1, 1});
  Conv2d(a, x, w, nullptr, y);
  EXPECT_EQ(Values(y), (std::vector<float>{3, 7, 30, 70}));
}

TEST(RefConv2d, AccumulatesInDouble) {
  // 1e8 + 1 - 1e8 in float32 order-dependent arithmetic is 0; in double it is exactly 1.
  const HostTensor x = HostTensor::Float({1, 3, 1, 1}, {1e8f, 1.0f, -1e8f});
  const HostTensor w = HostTensor::Float({1, 3, 1, 1}, {1, 1, 1});
  HostTensor y(ir::DType::kFloat32, {1, 1, 1, 1});
  Conv2d(Conv2dAttrs{}, x, w, nullptr, y);
  EXPECT_EQ(y.f32()[0], 1.0f);
}

TEST(RefLinear, TwoRowsWithBias) {
  // row0 = [1,2,3]: [1-3+1, (1+2+3)*0.5-1] = [-1, 2]; row1 = [4,5,6]: [4-6+1, 7.5-1].
  const HostTensor x = HostTensor::Float({2, 3}, Iota(6));
  const HostTensor w = HostTensor::Float({2, 3}, {1, 0, -1, 0.5f, 0.5f, 0.5f});
  const HostTensor b = HostTensor::Float({2}, {1, -1});
  HostTensor y(ir::DType::kFloat32, {2, 2});
  Linear(x, w, &b, y);
  EXPECT_EQ(Values(y), (std::vector<float>{-1, 2, -1, 6.5f}));
}

TEST(RefLinear, LeadingDimsAndNoBias) {
  // x [2,1,2], w = [[1,1]]: row sums [1+2, 3+4] = [3, 7].
  HostTensor y(ir::DType::kFloat32, {2, 1, 1});
  Linear(HostTensor::Float({2, 1, 2}, Iota(4)), HostTensor::Float({1, 2}, {1, 1}), nullptr, y);
  EXPECT_EQ(Values(y), (std::vector<float>{3, 7}));
}

}  // namespace
}  // namespace tinyforge::exec
