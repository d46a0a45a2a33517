// Every operator kind through the runtime (program image -> validation -> op glue ->
// kernel) against a direct call of the same kernel: bit-exact, seeded random shapes.
// Streamed (in-place by rows) convolutions, depthwise convolutions and pools must give the
// bytes the kernel gives with separate buffers, at the overlap the planner would choose.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>

#include "harness.h"
#include "plan/graph_plan.h"
#include "tinyforge/stream.h"

namespace tinyforge::rt {
namespace {

using testing::Builder;
using testing::Loaded;
using testing::Rng;

constexpr uint32_t kConv = KernelId("s8_conv__ref");
constexpr uint32_t kDwconv = KernelId("s8_dwconv__ref");

std::vector<int8_t> Bytes(const Loaded& l, int32_t tensor) {
  const TensorRef t = l.model.Tensor(tensor);
  return std::vector<int8_t>(reinterpret_cast<const int8_t*>(t.data),
                             reinterpret_cast<const int8_t*>(t.data) + t.size);
}

void Put(Loaded& l, int32_t tensor, const std::vector<int8_t>& v) {
  const TensorRef t = l.model.Tensor(tensor);
  ASSERT_EQ(t.size, v.size());
  std::memcpy(t.data, v.data(), v.size());
}

struct QuantArrays {
  std::vector<int32_t> bias, multiplier, shift;
};
QuantArrays RandomQuant(Rng& r, int32_t channels) {
  return {r.Int32s(static_cast<size_t>(channels), -5000, 5000),
          r.Int32s(static_cast<size_t>(channels), 1 << 30, 0x7fffffff),
          r.Int32s(static_cast<size_t>(channels), -12, 0)};
}

// ---- Convolutions, plain and streamed ---------------------------------------------------

template <class P>
StreamGeometry Geometry(const P& p, int32_t in_c, int32_t out_c, int32_t k_h, int32_t dil) {
  return {p.out_h,    p.in_h,    p.in_w * in_c,      p.out_w * out_c,
          p.stride_h, p.pad_top, (k_h - 1) * dil + 1};
}

s8_conv_params RandomConvParams(Rng& r, bool pointwise) {
  s8_conv_params p{};
  p.batches = pointwise ? 1 : r.Int(1, 2);
  p.in_h = r.Int(1, 9), p.in_w = r.Int(1, 9);
  const int32_t groups = pointwise ? 1 : r.Int(1, 2);
  p.filter_in_c = r.Int(1, 5);
  p.in_c = p.filter_in_c * groups;
  p.out_c = groups * r.Int(1, 6);
  p.k_h = pointwise ? 1 : r.Int(1, 4), p.k_w = pointwise ? 1 : r.Int(1, 4);
  p.stride_h = pointwise ? 1 : r.Int(1, 3), p.stride_w = pointwise ? 1 : r.Int(1, 3);
  p.dilation_h = pointwise ? 1 : r.Int(1, 2), p.dilation_w = pointwise ? 1 : r.Int(1, 2);
  p.pad_top = pointwise ? 0 : r.Int(0, p.k_h - 1);
  p.pad_left = pointwise ? 0 : r.Int(0, p.k_w - 1);
  const int32_t eff_h = (p.k_h - 1) * p.dilation_h + 1, eff_w = (p.k_w - 1) * p.dilation_w + 1;
  p.out_h = std::max(1, (p.in_h + 2 * p.pad_top - eff_h) / p.stride_h + 1);
  p.out_w = std::max(1, (p.in_w + 2 * p.pad_left - eff_w) / p.stride_w + 1);
  p.input_offset = r.Int(-127, 128);
  p.output_offset = r.Int(-128, 127);
  p.act_min = r.Int(-128, 0);
  p.act_max = r.Int(p.act_min, 127);
  return p;
}

// Runs conv params `p` through the runtime. streamed: output over the input at the
// planner's offset with its line buffer; compares with the kernel on separate buffers.
// rows: output rows per kernel call when streamed (the op record's stream_rows).
void CheckConv(Rng& r, s8_conv_params p, bool streamed, int seed, int32_t rows = 1) {
  if (streamed) p.batches = 1;
  const uint32_t in_bytes = static_cast<uint32_t>(p.batches * p.in_h * p.in_w * p.in_c);
  const uint32_t out_bytes = static_cast<uint32_t>(p.batches * p.out_h * p.out_w * p.out_c);
  const auto input = r.Int8s(in_bytes);
  const auto weights = r.Int8s(static_cast<size_t>(p.out_c * p.k_h * p.k_w * p.filter_in_c));
  const QuantArrays q = RandomQuant(r, p.out_c);
  std::vector<int8_t> want(out_bytes);
  s8_conv_params bound = p;
  bound.multiplier = q.multiplier.data();
  bound.shift = q.shift.data();
  s8_conv__ref(&bound, input.data(), weights.data(), q.bias.data(), want.data(), nullptr);

  // Layout: [pad][input/output overlap ...][line buffer]
  int64_t in_off = 0, out_off = 0, line_off = 0, line_bytes = 0, arena = 0;
  const StreamGeometry g = StreamBlocks(Geometry(p, p.in_c, p.out_c, p.k_h, p.dilation_h), rows);
  if (streamed) {
    const plan::StreamChoice c = plan::ChooseStream(g, 16);
    in_off = std::max<int64_t>(0, -c.delta);
    out_off = in_off + c.delta;
    line_off = (std::max<int64_t>(in_off + in_bytes, out_off + out_bytes) + 15) / 16 * 16;
    line_bytes = c.line_bytes;
    arena = line_off + line_bytes;
  } else {
    out_off = (in_bytes + 15) / 16 * 16;
    arena = out_off + out_bytes;
  }
  Builder b(static_cast<uint32_t>(arena));
  const int32_t t_in = b.Arena(fmt::kInt8, static_cast<uint32_t>(in_off), in_bytes);
  const int32_t t_w = b.Const(weights, fmt::kInt8);
  const int32_t t_b = b.Const(q.bias, fmt::kInt32);
  const int32_t t_m = b.Const(q.multiplier, fmt::kInt32);
  const int32_t t_s = b.Const(q.shift, fmt::kInt32);
  const int32_t t_out = b.Arena(fmt::kInt8, static_cast<uint32_t>(out_off), out_bytes);
  std::vector<int32_t> operands = {t_in, t_w, t_b, t_m, t_s, t_out, fmt::kNoTensor};
  if (streamed) {
    operands.push_back(
        b.Arena(fmt::kInt8, static_cast<uint32_t>(line_off), static_cast<uint32_t>(line_bytes)));
  }
  b.Input(t_in, {p.batches, p.in_h, p.in_w, p.in_c});
  b.Output(t_out, {p.batches, p.out_h, p.out_w, p.out_c});
  b.Op(kConv, operands, emit::EncodeParams(p), streamed ? fmt::kOpFlagStream : 0);
  if (streamed) b.p.ops.back().stream_rows = static_cast<uint16_t>(rows);
  Loaded l(b.Image(), testing::RegionSizes(b.p));
  ASSERT_EQ(l.status, Status::kOk) << StatusText(l.status) << " seed " << seed;
  Put(l, t_in, input);
  ASSERT_EQ(l.model.Run(), Status::kOk) << "seed " << seed;
  EXPECT_EQ(Bytes(l, t_out), want) << "seed " << seed << (streamed ? " streamed" : "")
                                    << " rows per call " << rows;
}

TEST(Ops, ConvMatchesKernel) {
  for (int seed = 0; seed < 300; ++seed) {
    Rng r(static_cast<uint32_t>(seed));
    CheckConv(r, RandomConvParams(r, false), false, seed);
  }
}

TEST(Ops, ConvStreamedInPlaceMatchesKernel) {
  for (int seed = 0; seed < 300; ++seed) {
    Rng r(static_cast<uint32_t>(seed) + 1000u);
    CheckConv(r, RandomConvParams(r, false), true, seed);
  }
}

// Blocks of k output rows per kernel call (docs/decisions.md 54), k from 2 to beyond out_h
// (one call: the whole tensor), a partial last block where k does not divide out_h.
TEST(Ops, ConvStreamedByBlocksMatchesKernel) {
  for (int seed = 0; seed < 300; ++seed) {
    Rng r(static_cast<uint32_t>(seed) + 6000u);
    const s8_conv_params p = RandomConvParams(r, false);
    CheckConv(r, p, true, seed, r.Int(2, 6));
  }
  for (int seed = 0; seed < 100; ++seed) {  // 1x1 by blocks of pixels
    Rng r(static_cast<uint32_t>(seed) + 7000u);
    s8_conv_params p = RandomConvParams(r, true);
    p.in_h *= p.in_w, p.out_h = p.in_h, p.in_w = p.out_w = 1;
    CheckConv(r, p, true, seed, r.Int(2, 20));
  }
}

TEST(Ops, PointwiseConvStreamedByPixelMatchesKernel) {
  // 1x1 convs are cut into pixels by presenting the image as [H*W, 1].
  for (int seed = 0; seed < 200; ++seed) {
    Rng r(static_cast<uint32_t>(seed) + 2000u);
    s8_conv_params p = RandomConvParams(r, true);
    p.in_h *= p.in_w, p.out_h = p.in_h, p.in_w = p.out_w = 1;
    CheckConv(r, p, true, seed);
  }
}

void CheckDwconv(Rng& r, bool streamed, int seed, int32_t rows = 1) {
  s8_dwconv_params p{};
  p.batches = streamed ? 1 : r.Int(1, 2);
  p.in_h = r.Int(1, 10), p.in_w = r.Int(1, 8), p.in_c = r.Int(1, 6);
  p.depth_multiplier = r.Int(1, 2);
  p.out_c = p.in_c * p.depth_multiplier;
  p.k_h = r.Int(1, 4), p.k_w = r.Int(1, 4);
  p.stride_h = r.Int(1, 2), p.stride_w = r.Int(1, 2);
  p.dilation_h = r.Int(1, 2), p.dilation_w = 1;
  p.pad_top = r.Int(0, p.k_h - 1), p.pad_left = r.Int(0, p.k_w - 1);
  p.out_h =
      std::max(1, (p.in_h + 2 * p.pad_top - ((p.k_h - 1) * p.dilation_h + 1)) / p.stride_h + 1);
  p.out_w = std::max(1, (p.in_w + 2 * p.pad_left - p.k_w) / p.stride_w + 1);
  p.input_offset = r.Int(-127, 128), p.output_offset = r.Int(-128, 127);
  p.act_min = -128, p.act_max = 127;
  const uint32_t in_bytes = static_cast<uint32_t>(p.batches * p.in_h * p.in_w * p.in_c);
  const uint32_t out_bytes = static_cast<uint32_t>(p.batches * p.out_h * p.out_w * p.out_c);
  const auto input = r.Int8s(in_bytes);
  const auto weights = r.Int8s(static_cast<size_t>(p.k_h * p.k_w * p.out_c));
  const QuantArrays q = RandomQuant(r, p.out_c);
  std::vector<int8_t> want(out_bytes);
  s8_dwconv_params bound = p;
  bound.multiplier = q.multiplier.data();
  bound.shift = q.shift.data();
  s8_dwconv__ref(&bound, input.data(), weights.data(), q.bias.data(), want.data(), nullptr);
  const StreamGeometry g = StreamBlocks(Geometry(p, p.in_c, p.out_c, p.k_h, p.dilation_h), rows);
  int64_t in_off = 0, out_off = 0, line_off = 0, line_bytes = 0, arena = 0;
  if (streamed) {
    const plan::StreamChoice c = plan::ChooseStream(g, 16);
    in_off = std::max<int64_t>(0, -c.delta);
    out_off = in_off + c.delta;
    line_off = (std::max<int64_t>(in_off + in_bytes, out_off + out_bytes) + 15) / 16 * 16;
    line_bytes = c.line_bytes;
    arena = line_off + line_bytes;
  } else {
    out_off = (in_bytes + 15) / 16 * 16;
    arena = out_off + out_bytes;
  }
  Builder b(static_cast<uint32_t>(arena));
  const int32_t t_in = b.Arena(fmt::kInt8, static_cast<uint32_t>(in_off), in_bytes);
  const int32_t t_w = b.Const(weights, fmt::kInt8);
  const int32_t t_m = b.Const(q.multiplier, fmt::kInt32);
  const int32_t t_s = b.Const(q.shift, fmt::kInt32);
  const int32_t t_out = b.Arena(fmt::kInt8, static_cast<uint32_t>(out_off), out_bytes);
  // Bias passed as a constant too; a null bias is covered by the fc test.
  const int32_t t_b = b.Const(q.bias, fmt::kInt32);
  std::vector<int32_t> operands = {t_in, t_w, t_b, t_m, t_s, t_out, fmt::kNoTensor};
  if (streamed) {
    operands.push_back(
        b.Arena(fmt::kInt8, static_cast<uint32_t>(line_off), static_cast<uint32_t>(line_bytes)));
  }
  b.Input(t_in, {p.batches, p.in_h, p.in_w, p.in_c});
  b.Output(t_out, {p.batches, p.out_h, p.out_w, p.out_c});
  b.Op(kDwconv, operands, emit::EncodeParams(p), streamed ? fmt::kOpFlagStream : 0);
  if (streamed) b.p.ops.back().stream_rows = static_cast<uint16_t>(rows);
  Loaded l(b.Image(), testing::RegionSizes(b.p));
  ASSERT_EQ(l.status, Status::kOk) << StatusText(l.status) << " seed " << seed;
  Put(l, t_in, input);
  ASSERT_EQ(l.model.Run(), Status::kOk);
  EXPECT_EQ(Bytes(l, t_out), want) << "seed " << seed << (streamed ? " streamed" : "");
}

TEST(Ops, DwconvMatchesKernel) {
  for (int seed = 0; seed < 200; ++seed) {
    Rng r(static_cast<uint32_t>(seed) + 3000u);
    CheckDwconv(r, false, seed);
  }
  for (int seed = 0; seed < 300; ++seed) {
    Rng r(static_cast<uint32_t>(seed) + 4000u);
    CheckDwconv(r, true, seed);
  }
  for (int seed = 0; seed < 300; ++seed) {  // blocks of rows per call
    Rng r(static_cast<uint32_t>(seed) + 8000u);
    CheckDwconv(r, true, seed, r.Int(2, 6));
  }
}

void CheckPool(Rng& r, bool average, bool streamed, int seed, int32_t rows = 1) {
  s8_pool_params p{};
  p.batches = streamed ? 1 : r.Int(1, 2);
  p.in_h = r.Int(1, 10), p.in_w = r.Int(1, 8), p.channels = r.Int(1, 6);
  p.filter_h = r.Int(1, 4), p.filter_w = r.Int(1, 4);
  p.stride_h = r.Int(1, 3), p.stride_w = r.Int(1, 3);
  p.pad_top = r.Int(0, p.filter_h - 1), p.pad_left = r.Int(0, p.filter_w - 1);
  p.out_h = std::max(1, (p.in_h + p.pad_top - p.filter_h) / p.stride_h + 1);
  p.out_w = std::max(1, (p.in_w + p.pad_left - p.filter_w) / p.stride_w + 1);
  // Keep every window on the input (validated: an empty window has no average).
  while (p.out_h > 1 && (p.out_h - 1) * p.stride_h - p.pad_top >= p.in_h) --p.out_h;
  while (p.out_w > 1 && (p.out_w - 1) * p.stride_w - p.pad_left >= p.in_w) --p.out_w;
  p.act_min = -128, p.act_max = r.Int(0, 127);
  const uint32_t in_bytes = static_cast<uint32_t>(p.batches * p.in_h * p.in_w * p.channels);
  const uint32_t out_bytes = static_cast<uint32_t>(p.batches * p.out_h * p.out_w * p.channels);
  const auto input = r.Int8s(in_bytes);
  std::vector<int8_t> want(out_bytes);
  (average ? s8_avgpool__ref : s8_maxpool__ref)(&p, input.data(), want.data());
  const StreamGeometry g = StreamBlocks(PoolRows(p), rows);
  int64_t in_off = 0, out_off = 0, line_off = 0, line_bytes = 0, arena = 0;
  if (streamed) {
    const plan::StreamChoice c = plan::ChooseStream(g, 16);
    in_off = std::max<int64_t>(0, -c.delta);
    out_off = in_off + c.delta;
    line_off = (std::max<int64_t>(in_off + in_bytes, out_off + out_bytes) + 15) / 16 * 16;
    line_bytes = c.line_bytes;
    arena = line_off + line_bytes;
  } else {
    out_off = (in_bytes + 15) / 16 * 16;
    arena = out_off + out_bytes;
  }
  Builder b(static_cast<uint32_t>(arena));
  const int32_t t_in = b.Arena(fmt::kInt8, static_cast<uint32_t>(in_off), in_bytes);
  const int32_t t_out = b.Arena(fmt::kInt8, static_cast<uint32_t>(out_off), out_bytes);
  std::vector<int32_t> operands = {t_in, t_out};
  if (streamed) {
    operands.push_back(
        b.Arena(fmt::kInt8, static_cast<uint32_t>(line_off), static_cast<uint32_t>(line_bytes)));
  }
  b.Input(t_in, {p.batches, p.in_h, p.in_w, p.channels});
  b.Output(t_out, {p.batches, p.out_h, p.out_w, p.channels});
  b.Op(KernelId(average ? "s8_avgpool__ref" : "s8_maxpool__ref"), operands, emit::EncodeParams(p),
       streamed ? fmt::kOpFlagStream : 0);
  if (streamed) b.p.ops.back().stream_rows = static_cast<uint16_t>(rows);
  Loaded l(b.Image(), testing::RegionSizes(b.p));
  ASSERT_EQ(l.status, Status::kOk) << StatusText(l.status) << " seed " << seed;
  Put(l, t_in, input);
  ASSERT_EQ(l.model.Run(), Status::kOk);
  EXPECT_EQ(Bytes(l, t_out), want) << "seed " << seed << " rows per call " << rows;
}

TEST(Ops, PoolsMatchKernels) {
  for (int seed = 0; seed < 400; ++seed) {
    Rng r(static_cast<uint32_t>(seed) + 5000u);
    CheckPool(r, seed % 2 == 0, seed % 4 < 2, seed);
  }
  for (int seed = 0; seed < 200; ++seed) {  // streamed, blocks of rows per call
    Rng r(static_cast<uint32_t>(seed) + 9000u);
    CheckPool(r, seed % 2 == 0, true, seed, r.Int(2, 6));
  }
}

TEST(Ops, TooSmallLineBufferIsAnOverrunNotACrash) {
  // 3x3 pad 1 over 6 rows with the output on the input needs 2 rows; give 1.
  s8_dwconv_params p{};
  p.batches = 1, p.in_h = 6, p.in_w = 2, p.in_c = 2, p.depth_multiplier = 1, p.out_c = 2;
  p.out_h = 6, p.out_w = 2, p.k_h = 3, p.k_w = 3, p.stride_h = p.stride_w = 1;
  p.dilation_h = p.dilation_w = 1, p.pad_top = p.pad_left = 1, p.act_min = -128, p.act_max = 127;
  Builder b(64);
  const int32_t t_in = b.Arena(fmt::kInt8, 0, 24);
  const int32_t t_w = b.Const(std::vector<int8_t>(18, 1), fmt::kInt8);
  const int32_t t_m = b.Const(std::vector<int32_t>(2, 1 << 30), fmt::kInt32);
  const int32_t t_s = b.Const(std::vector<int32_t>(2, 0), fmt::kInt32);
  const int32_t t_out = b.Arena(fmt::kInt8, 0, 24);
  const int32_t t_line = b.Arena(fmt::kInt8, 32, 4);
  b.Input(t_in, {1, 6, 2, 2});
  b.Output(t_out, {1, 6, 2, 2});
  b.Op(kDwconv, {t_in, t_w, fmt::kNoTensor, t_m, t_s, t_out, fmt::kNoTensor, t_line},
       emit::EncodeParams(p), fmt::kOpFlagStream);
  Loaded l(b.Image(), testing::RegionSizes(b.p));
  ASSERT_EQ(l.status, Status::kOk);
  EXPECT_EQ(l.model.Run(), Status::kStreamOverrun);
}

// ---- The other operators ---------------------------------------------------------------

TEST(Ops, FullyConnectedMatchesKernel) {
  for (int seed = 0; seed < 100; ++seed) {
    Rng r(static_cast<uint32_t>(seed) + 6000u);
    s8_fc_params p{};
    p.batches = r.Int(1, 3), p.in_features = r.Int(1, 40), p.out_features = r.Int(1, 20);
    p.input_offset = r.Int(-127, 128), p.output_offset = r.Int(-128, 127);
    p.per_channel = r.Int(0, 1), p.act_min = -128, p.act_max = 127;
    const int32_t nq = p.per_channel ? p.out_features : 1;
    const auto input = r.Int8s(static_cast<size_t>(p.batches * p.in_features));
    const auto weights = r.Int8s(static_cast<size_t>(p.in_features * p.out_features));
    const QuantArrays q = RandomQuant(r, nq);
    const bool with_bias = seed % 3 != 0;
    const auto bias = r.Int32s(static_cast<size_t>(p.out_features), -3000, 3000);
    std::vector<int8_t> want(static_cast<size_t>(p.batches * p.out_features));
    s8_fc_params bound = p;
    bound.multiplier = q.multiplier.data(), bound.shift = q.shift.data();
    s8_fc__ref(&bound, input.data(), weights.data(), with_bias ? bias.data() : nullptr, want.data(),
               nullptr);
    Builder b(1024);
    const int32_t t_in = b.Arena(fmt::kInt8, 0, static_cast<uint32_t>(input.size()));
    const int32_t t_out = b.Arena(fmt::kInt8, 512, static_cast<uint32_t>(want.size()));
    b.Input(t_in, {p.batches, p.in_features});
    b.Output(t_out, {p.batches, p.out_features});
    b.Op(KernelId("s8_fc__ref"),
         {t_in, b.Const(weights, fmt::kInt8),
          with_bias ? b.Const(bias, fmt::kInt32) : fmt::kNoTensor,
          b.Const(q.multiplier, fmt::kInt32), b.Const(q.shift, fmt::kInt32), t_out, fmt::kNoTensor},
         emit::EncodeParams(p));
    Loaded l(b.Image(), testing::RegionSizes(b.p));
    ASSERT_EQ(l.status, Status::kOk) << StatusText(l.status);
    Put(l, t_in, input);
    ASSERT_EQ(l.model.Run(), Status::kOk);
    EXPECT_EQ(Bytes(l, t_out), want) << "seed " << seed;
  }
}

s8_broadcast_shape Dense(int32_t n) {
  return {{1, 1, 1, 1, 1, n}, {0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 1}};
}

TEST(Ops, AddMulPreluInPlaceAndBroadcast) {
  Rng r(77);
  for (int variant = 0; variant < 6; ++variant) {
    const bool add = variant < 2, prelu = variant >= 4, in_place = variant % 2 == 0;
    const int32_t n = 48;
    const auto a = r.Int8s(n);
    const auto c = r.Int8s(in_place ? n : 8);  // broadcast the second input over rows
    s8_broadcast_shape shape =
        in_place ? Dense(n)
                 : s8_broadcast_shape{{1, 1, 1, 1, 6, 8}, {0, 0, 0, 0, 8, 1}, {0, 0, 0, 0, 0, 1}};
    std::vector<int8_t> want(n);
    std::vector<int32_t> params;
    if (add) {
      s8_add_params p{shape, 5, -3, 20, 1 << 30, -1, 1288490189, -2, 1 << 30, -17, 3, -128, 127, TF_ROUNDING_SINGLE, 0, 0, 0, 0};
      s8_add__ref(&p, a.data(), c.data(), want.data());
      params = emit::EncodeParams(p);
    } else if (prelu) {  // x in place; c the slopes (per row of 8 when broadcast)
      s8_prelu_params p{shape, 5, -3, 1 << 30, -1, 1500000000, -7, 3, TF_ROUNDING_DOUBLE};
      s8_prelu__ref(&p, a.data(), c.data(), want.data());
      params = emit::EncodeParams(p);
    } else {
      s8_mul_params p{shape, 5, -3, 1 << 30, -6, 3, -100, 100, TF_ROUNDING_SINGLE};
      s8_mul__ref(&p, a.data(), c.data(), want.data());
      params = emit::EncodeParams(p);
    }
    Builder b(256);
    const int32_t t_a = b.Arena(fmt::kInt8, 0, n);
    const int32_t t_c = b.Arena(fmt::kInt8, 64, static_cast<uint32_t>(c.size()));
    const int32_t t_out = in_place ? b.Arena(fmt::kInt8, 0, n) : b.Arena(fmt::kInt8, 128, n);
    b.Input(t_a, {n});
    b.Input(t_c, {static_cast<int32_t>(c.size())});
    b.Output(t_out, {n});
    b.Op(KernelId(add ? "s8_add__ref" : prelu ? "s8_prelu__ref" : "s8_mul__ref"),
         {t_a, t_c, t_out}, params);
    Loaded l(b.Image(), testing::RegionSizes(b.p));
    ASSERT_EQ(l.status, Status::kOk) << StatusText(l.status);
    Put(l, t_a, a);
    Put(l, t_c, c);
    ASSERT_EQ(l.model.Run(), Status::kOk);
    EXPECT_EQ(Bytes(l, t_out), want) << variant;
  }
}

// Unary int8 -> int8 kernels: mean, softmax, logistic (in place), tanh, requantize, pad.
template <class P>
void CheckUnary(const char* symbol, void (*kernel)(const P*, const int8_t*, int8_t*), const P& p,
                uint32_t in_n, uint32_t out_n, bool in_place) {
  Rng r(in_n * 31 + out_n);
  const auto input = r.Int8s(in_n);
  std::vector<int8_t> want(out_n);
  kernel(&p, input.data(), want.data());
  Builder b(1024);
  const int32_t t_in = b.Arena(fmt::kInt8, 0, in_n);
  const int32_t t_out = b.Arena(fmt::kInt8, in_place ? 0 : 512, out_n);
  b.Input(t_in, {static_cast<int32_t>(in_n)});
  b.Output(t_out, {static_cast<int32_t>(out_n)});
  b.Op(KernelId(symbol), {t_in, t_out}, emit::EncodeParams(p));
  Loaded l(b.Image(), testing::RegionSizes(b.p));
  ASSERT_EQ(l.status, Status::kOk) << symbol << ": " << StatusText(l.status);
  Put(l, t_in, input);
  ASSERT_EQ(l.model.Run(), Status::kOk);
  EXPECT_EQ(Bytes(l, t_out), want) << symbol;
}

// softmax: __ref without scratch, and the host's fast variant on a call large enough for its
// exp table (a scratch buffer in the arena, softmax.h), both equal to __ref called directly.
TEST(Ops, SoftmaxWithAndWithoutTable) {
  for (const auto& [symbol, rows] : {std::pair{"s8_softmax__ref", 3}, {"s8_softmax__scalar", 3},
                                     {"s8_softmax__scalar", 64}}) {
    const s8_softmax_params p{rows, 32, 1717986918, 23, -248};
    const uint32_t n = static_cast<uint32_t>(rows) * 32;
    Rng r(n);
    const auto input = r.Int8s(n);
    std::vector<int8_t> want(n);
    s8_softmax__ref(&p, input.data(), want.data(), nullptr);
    const int64_t table = ScratchBytes<OpKind::kSoftmax>(KernelId(symbol), p);
    EXPECT_EQ(table, std::string(symbol) == "s8_softmax__scalar" && rows == 64 ? 1024 : 0);
    Builder b(2 * n + 1024);
    const int32_t t_in = b.Arena(fmt::kInt8, 0, n);
    const int32_t t_out = b.Arena(fmt::kInt8, n, n);
    const int32_t t_scratch =
        table > 0 ? b.Arena(fmt::kInt8, 2 * n, static_cast<uint32_t>(table)) : fmt::kNoTensor;
    b.Input(t_in, {static_cast<int32_t>(n)});
    b.Output(t_out, {static_cast<int32_t>(n)});
    b.Op(KernelId(symbol), {t_in, t_out, t_scratch}, emit::EncodeParams(p));
    Loaded l(b.Image(), testing::RegionSizes(b.p));
    ASSERT_EQ(l.status, Status::kOk) << symbol << ": " << StatusText(l.status);
    Put(l, t_in, input);
    ASSERT_EQ(l.model.Run(), Status::kOk);
    EXPECT_EQ(Bytes(l, t_out), want) << symbol << " rows " << rows;
  }
}

TEST(Ops, UnaryKernelsMatch) {
  CheckUnary("s8_mean__ref", s8_mean__ref, s8_mean_params{2, 25, 8, -3, 4, 1431655765, -4, TF_ROUNDING_SINGLE}, 400, 16,
             false);
  CheckUnary("s8_mean__scalar", s8_mean__scalar,
             s8_mean_params{2, 25, 8, -3, 4, 1431655765, -4, TF_ROUNDING_SINGLE}, 400, 16, false);
  CheckUnary("s8_reduce_max__ref", s8_reduce_max__ref, s8_reduce_max_params{3, 7, 5}, 105, 15,
             false);
  CheckUnary("s8_logistic__ref", s8_logistic__ref, s8_logistic_params{100, -5, 57, 1717986918, 1},
             100, 100, true);
  CheckUnary("s8_tanh__ref", s8_tanh__ref, s8_tanh_params{100, 7, 57, 1717986918, 1}, 100, 100,
             false);
  CheckUnary("s8_requantize__ref", s8_requantize__ref,
             s8_requantize_params{90, -3, 5, 1500000000, -1, -128, 127, TF_ROUNDING_SINGLE}, 90, 90, false);
  CheckUnary("s8_pad__ref", s8_pad__ref,
             s8_pad_params{{1, 1, 3, 4, 5}, {0, 0, 1, 0, 2}, {0, 0, 1, 2, 0}, -7}, 60, 5 * 6 * 7,
             false);
}

// argmax: int8 in, int32 indices out (an int32 program output), vs the kernel called directly.
TEST(Ops, ArgmaxWritesInt32Indices) {
  Rng r(5);
  const s8_argmax_params p{3, 20, 4, 0};
  const auto input = r.Int8s(3 * 20 * 4);
  std::vector<int32_t> want(12);
  s8_argmax__ref(&p, input.data(), want.data());
  Builder b(1024);
  const int32_t t_in = b.Arena(fmt::kInt8, 0, 240);
  const int32_t t_out = b.Arena(fmt::kInt32, 256, 48);
  b.Input(t_in, {240});
  b.Output(t_out, {12}, 1.0f, 0);
  b.Op(KernelId("s8_argmax__ref"), {t_in, t_out}, emit::EncodeParams(p));
  Loaded l(b.Image(), testing::RegionSizes(b.p));
  ASSERT_EQ(l.status, Status::kOk) << StatusText(l.status);
  Put(l, t_in, input);
  ASSERT_EQ(l.model.Run(), Status::kOk);
  std::vector<int32_t> got(12);
  std::memcpy(got.data(), l.model.Tensor(t_out).data, 48);
  EXPECT_EQ(got, want);
  for (int32_t v : got) EXPECT_TRUE(v >= 0 && v < 20) << v;
}

// gather: an int32 program input (token ids) picks rows of an int8 constant table; an id out
// of range fails the run with kBadIndexValue and leaves the output as it was.
TEST(Ops, GatherRowsByInt32InputAndRefusesBadIds) {
  Rng r(6);
  const s8_gather_params p{1, 10, 5, 8, 0};  // a table [10, 8], 5 ids
  const auto table = r.Int8s(80);
  const std::vector<int32_t> ids = {3, 0, 9, 3, 7};
  std::vector<int8_t> want(40);
  s8_gather__ref(&p, table.data(), ids.data(), want.data());
  for (const char* symbol : {"s8_gather__ref", "s8_gather__scalar"}) {
    Builder b(1024);
    const int32_t t_table = b.Const(table, fmt::kInt8);
    const int32_t t_ids = b.Arena(fmt::kInt32, 0, 20);
    const int32_t t_out = b.Arena(fmt::kInt8, 32, 40);
    b.Input(t_ids, {5}, 1.0f, 0);
    b.Output(t_out, {40});
    b.Op(KernelId(symbol), {t_table, t_ids, t_out}, emit::EncodeParams(p));
    Loaded l(b.Image(), testing::RegionSizes(b.p));
    ASSERT_EQ(l.status, Status::kOk) << StatusText(l.status);
    std::memcpy(l.model.Tensor(t_ids).data, ids.data(), 20);
    ASSERT_EQ(l.model.Run(), Status::kOk);
    std::vector<int8_t> got(40);
    std::memcpy(got.data(), l.model.Tensor(t_out).data, 40);
    EXPECT_EQ(got, want) << symbol;
    for (int32_t bad : {10, -1}) {
      std::vector<int32_t> ids_bad = ids;
      ids_bad[2] = bad;
      std::memset(l.model.Tensor(t_out).data, 0x55, 40);
      std::memcpy(l.model.Tensor(t_ids).data, ids_bad.data(), 20);
      EXPECT_EQ(l.model.Run(), Status::kBadIndexValue) << symbol << " id " << bad;
      EXPECT_EQ(l.model.Tensor(t_out).data[0], 0x55) << "nothing written";
    }
  }
}

// lut: input, a 256-byte constant table, output; in place and out of place, every host variant
// against __ref and against the table read directly.
TEST(Ops, LutMatchesTheTable) {
  Rng r(11);
  const auto table = r.Int8s(TF_LUT_ENTRIES);
  const auto input = r.Int8s(300);
  std::vector<int8_t> want(input.size());
  for (size_t i = 0; i < input.size(); ++i) want[i] = table[static_cast<uint8_t>(input[i])];
  for (const char* symbol : {"s8_lut__ref", "s8_lut__scalar"}) {
    for (bool in_place : {false, true}) {
      Builder b(1024);
      const int32_t t_in = b.Arena(fmt::kInt8, 0, 300);
      const int32_t t_out = b.Arena(fmt::kInt8, in_place ? 0 : 512, 300);
      const int32_t t_table =
          b.Const(std::vector<uint8_t>(table.begin(), table.end()), fmt::kInt8);
      b.Input(t_in, {300});
      b.Output(t_out, {300});
      b.Op(KernelId(symbol), {t_in, t_table, t_out}, emit::EncodeParams(s8_lut_params{300}));
      Loaded l(b.Image(), testing::RegionSizes(b.p));
      ASSERT_EQ(l.status, Status::kOk) << symbol << ": " << StatusText(l.status);
      Put(l, t_in, input);
      ASSERT_EQ(l.model.Run(), Status::kOk);
      EXPECT_EQ(Bytes(l, t_out), want) << symbol << (in_place ? " in place" : "");
    }
  }
}

// layernorm: input, int32 scale and bias constants, output; in place and out of place, every
// host variant against __ref called directly.
TEST(Ops, LayerNormMatchesTheKernel) {
  Rng r(15);
  const auto input = r.Int8s(3 * 20);
  std::vector<int32_t> scale(20), bias(20);
  for (size_t c = 0; c < 20; ++c) {
    scale[c] = 1500000000 - static_cast<int32_t>(c) * 40000000;
    bias[c] = (static_cast<int32_t>(c) - 10) * 300;
  }
  s8_layernorm_params p{3, 20, 0, -5, 123456, 0, 5, 1, scale.data(), bias.data()};
  std::vector<int8_t> want(input.size());
  s8_layernorm__ref(&p, input.data(), want.data());
  for (const char* symbol : {"s8_layernorm__ref", "s8_layernorm__scalar"}) {
    for (bool in_place : {false, true}) {
      Builder b(1024);
      const int32_t t_in = b.Arena(fmt::kInt8, 0, 60);
      const int32_t t_out = b.Arena(fmt::kInt8, in_place ? 0 : 512, 60);
      const int32_t t_scale = b.Const(scale, fmt::kInt32);
      const int32_t t_bias = b.Const(bias, fmt::kInt32);
      b.Input(t_in, {3, 20});
      b.Output(t_out, {3, 20});
      b.Op(KernelId(symbol), {t_in, t_scale, t_bias, t_out}, emit::EncodeParams(p));
      Loaded l(b.Image(), testing::RegionSizes(b.p));
      ASSERT_EQ(l.status, Status::kOk) << symbol << ": " << StatusText(l.status);
      Put(l, t_in, input);
      ASSERT_EQ(l.model.Run(), Status::kOk);
      EXPECT_EQ(Bytes(l, t_out), want) << symbol << (in_place ? " in place" : "");
    }
  }
}

TEST(Ops, ConcatQuantizeDequantize) {
  Rng r(5);
  // concat of two inputs (one requantized) along the inner axis.
  const auto a = r.Int8s(2 * 3), c = r.Int8s(2 * 5);
  std::vector<s8_concat_input> ins = {{3, 0, 0, 0, 0}, {5, 1, -4, 1500000000, -1}};
  s8_concat_params p{2, 2, ins.data(), 6, TF_ROUNDING_SINGLE};
  std::vector<int8_t> want(16);
  const int8_t* srcs[] = {a.data(), c.data()};
  s8_concat__ref(&p, srcs, want.data());
  Builder b(256);
  const int32_t t_a = b.Arena(fmt::kInt8, 0, 6), t_c = b.Arena(fmt::kInt8, 16, 10);
  const int32_t t_out = b.Arena(fmt::kInt8, 32, 16);
  std::vector<int32_t> params = emit::EncodeParams(p);
  for (auto in : ins) {
    int32_t w[abi::kConcatInputWords];
    abi::FieldWriter fw{w};
    abi::VisitConcatInput(in, fw);
    params.insert(params.end(), w, w + abi::kConcatInputWords);
  }
  b.Input(t_a, {2, 3});
  b.Input(t_c, {2, 5});
  b.Output(t_out, {2, 8});
  b.Op(KernelId("s8_concat__ref"), {t_a, t_c, t_out}, params);
  // quantize f32 -> s8 and dequantize back, chained after.
  const int32_t t_f = b.Arena(fmt::kFloat32, 64, 64);
  const int32_t t_q = b.Arena(fmt::kInt8, 128, 16);
  s8_dequantize_params dq{16, 0.125f, 6};
  s8_quantize_params qz{16, 0.25f, -1};
  b.Op(KernelId("s8_dequantize__ref"), {t_out, t_f}, emit::EncodeParams(dq));
  b.Op(KernelId("s8_quantize__ref"), {t_f, t_q}, emit::EncodeParams(qz));
  b.Output(t_q, {16});
  Loaded l(b.Image(), testing::RegionSizes(b.p));
  ASSERT_EQ(l.status, Status::kOk) << StatusText(l.status);
  Put(l, t_a, a);
  Put(l, t_c, c);
  ASSERT_EQ(l.model.Run(), Status::kOk);
  EXPECT_EQ(Bytes(l, t_out), want);
  std::vector<float> f(16);
  s8_dequantize__ref(&dq, want.data(), f.data());
  std::vector<int8_t> q(16);
  s8_quantize__ref(&qz, f.data(), q.data());
  EXPECT_EQ(Bytes(l, t_q), q);
}

}  // namespace
}  // namespace tinyforge::rt
