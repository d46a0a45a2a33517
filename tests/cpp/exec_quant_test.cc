// quantize / dequantize: PyTorch's decomposed formulas, worked by hand.
//   q = clamp(nearbyint(x * (float)(1/scale)) + zp, qmin, qmax)   (half to even, float32)
//   x = ((float)q - (float)zp) * (float)scale
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "exec/ref_ops.h"

namespace tinyforge::exec {
namespace {

TEST(RefQuantize, RoundsHalfToEven) {
  // scale 0.5: x / 0.5 = 2x exactly, so these land exactly on .5 ties.
  EXPECT_EQ(QuantizeValue(0.25f, 0.5, 0, -128, 127), 0);    // 0.5 -> 0
  EXPECT_EQ(QuantizeValue(0.75f, 0.5, 0, -128, 127), 2);    // 1.5 -> 2
  EXPECT_EQ(QuantizeValue(1.25f, 0.5, 0, -128, 127), 2);    // 2.5 -> 2
  EXPECT_EQ(QuantizeValue(1.75f, 0.5, 0, -128, 127), 4);    // 3.5 -> 4
  EXPECT_EQ(QuantizeValue(-0.25f, 0.5, 0, -128, 127), 0);   // -0.5 -> -0
  EXPECT_EQ(QuantizeValue(-0.75f, 0.5, 0, -128, 127), -2);  // -1.5 -> -2
  EXPECT_EQ(QuantizeValue(-1.25f, 0.5, 0, -128, 127), -2);  // -2.5 -> -2
  EXPECT_EQ(QuantizeValue(0.26f, 0.5, 0, -128, 127), 1);    // 0.52 -> 1
  // The zero point is added after rounding: 0.5 -> 0, + 3 = 3 (not round(3.5) = 4).
  EXPECT_EQ(QuantizeValue(0.25f, 0.5, 3, -128, 127), 3);
}

TEST(RefQuantize, MultipliesByFloat32Reciprocal) {
  // 0.35f = 0.3499999940...; (float)(1/0.1) = 10.0f; 0.35f * 10.0f rounds in float32 to
  // exactly 3.5 (the error 6e-8 is below half an ulp of 3.5), and 3.5 rounds to even: 4.
  // Dividing in double instead (0.3499999940/0.1 = 3.49999994) would give 3; PyTorch gives 4.
  EXPECT_EQ(QuantizeValue(0.35f, 0.1, 0, -128, 127), 4);
}

TEST(RefQuantize, ClampsAndSaturates) {
  EXPECT_EQ(QuantizeValue(1000.0f, 0.1, 0, -128, 127), 127);
  EXPECT_EQ(QuantizeValue(-1000.0f, 0.1, 0, -128, 127), -128);
  EXPECT_EQ(QuantizeValue(-1000.0f, 0.1, 0, -127, 127), -127);  // weight range
  EXPECT_EQ(QuantizeValue(0.0f, 0.1, -128, -128, 127), -128);
  EXPECT_EQ(QuantizeValue(std::numeric_limits<float>::infinity(), 0.1, 0, -128, 127), 127);
  EXPECT_EQ(QuantizeValue(-std::numeric_limits<float>::infinity(), 0.1, 0, -128, 127), -128);
  EXPECT_EQ(QuantizeValue(std::numeric_limits<float>::quiet_NaN(), 0.1, 5, -128, 127), 0);
  EXPECT_EQ(QuantizeValue(std::numeric_limits<float>::quiet_NaN(), 0.1, 5, 1, 127), 1);
  // int32: 3e9 is beyond the range and saturates at the exact bound.
  EXPECT_EQ(QuantizeValue(3e9f, 1.0, 0, INT32_MIN, INT32_MAX), INT32_MAX);
  EXPECT_EQ(QuantizeValue(-3e9f, 1.0, 0, INT32_MIN, INT32_MAX), INT32_MIN);
  EXPECT_EQ(QuantizeValue(1.0f, 1e-4, 0, INT32_MIN, INT32_MAX), 10000);
}

TEST(RefDequantize, Values) {
  EXPECT_EQ(DequantizeValue(-128, 0.5, -128), 0.0f);
  EXPECT_EQ(DequantizeValue(127, 0.5, -128), 127.5f);
  EXPECT_EQ(DequantizeValue(-3, 0.25, 1), -1.0f);
  // float32(0.1) * 3 in float32: 0.1f = 0.100000001490116; *3 = 0.3000000045 -> 0.3f
  EXPECT_EQ(DequantizeValue(3, 0.1, 0), 0.1f * 3.0f);
}

TEST(RefQuantize, PerTensorAndPerChannelTensors) {
  // Per-tensor, int8, scale 0.5, zp -1: [-1, 0, 0.6, 100] -> [-3, -1, 0, 127].
  const HostTensor x = HostTensor::Float({4}, {-1.0f, 0.0f, 0.6f, 100.0f});
  HostTensor q(ir::DType::kInt8, {4});
  Quantize(ir::PerTensorQuant(0.5, -1, -128, 127), x, q);
  EXPECT_EQ(std::vector<int8_t>(q.i8().begin(), q.i8().end()),
            (std::vector<int8_t>{-3, -1, 0, 127}));
  // Per-channel along axis 1 of [2,2]: column scales [1, 0.25]; x = [[1,1],[2,2]]
  // -> [[1,4],[2,8]]; dequantized back exactly.
  const ir::QuantParams pc{{1.0, 0.25}, {0, 0}, 1, -127, 127};
  const HostTensor xc = HostTensor::Float({2, 2}, {1, 1, 2, 2});
  HostTensor qc(ir::DType::kInt8, {2, 2});
  Quantize(pc, xc, qc);
  EXPECT_EQ(std::vector<int8_t>(qc.i8().begin(), qc.i8().end()), (std::vector<int8_t>{1, 4, 2, 8}));
  HostTensor back(ir::DType::kFloat32, {2, 2});
  Dequantize(pc, qc, back);
  EXPECT_EQ(std::vector<float>(back.f32().begin(), back.f32().end()),
            (std::vector<float>{1, 1, 2, 2}));
}

TEST(RefDequantize, Int32PerChannelBias) {
  // Bias [3] with scales [0.5, 0.25, 2]: [10, -8, 3] -> [5, -2, 6].
  const ir::QuantParams q{{0.5, 0.25, 2.0}, {0, 0, 0}, 0, INT32_MIN, INT32_MAX};
  HostTensor y(ir::DType::kFloat32, {3});
  Dequantize(q, HostTensor::Int32({3}, {10, -8, 3}), y);
  EXPECT_EQ(std::vector<float>(y.f32().begin(), y.f32().end()), (std::vector<float>{5, -2, 6}));
  // Per-channel subtracts in integers first: (float)(16777217 - 1) = 16777216 exactly, while
  // per-tensor computes (float)16777217 - (float)1 = 16777216 - 1 = 16777215.
  const ir::QuantParams pc_big{{1.0}, {1}, 0, INT32_MIN, INT32_MAX};
  HostTensor big(ir::DType::kFloat32, {1});
  Dequantize(pc_big, HostTensor::Int32({1}, {16777217}), big);
  EXPECT_EQ(big.f32()[0], 16777216.0f);
  Dequantize(ir::PerTensorQuant(1.0, 1, INT32_MIN, INT32_MAX), HostTensor::Int32({1}, {16777217}),
             big);
  EXPECT_EQ(big.f32()[0], 16777215.0f);
  // Per-channel on axis 0 of [2,3]: the channel of element i is i / 3.
  const ir::QuantParams q0{{1.0, 10.0}, {0, 1}, 0, -128, 127};
  HostTensor y2(ir::DType::kFloat32, {2, 3});
  Dequantize(q0, HostTensor::Int8({2, 3}, {1, 2, 3, 1, 2, 3}), y2);
  EXPECT_EQ(std::vector<float>(y2.f32().begin(), y2.f32().end()),
            (std::vector<float>{1, 2, 3, 0, 10, 20}));
}

}  // namespace
}  // namespace tinyforge::exec
