// Hand-worked cases for the __ref kernels whose rounding or layout rules are easy to get
// wrong (the TFLite oracle test covers them in bulk; these pin the rules down readably).
#include <set>
#include <string>
#include <cstdint>
#include <iterator>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/common/isa.h"
#include "kernels/kernels.h"
#include "quant/kernel_params.h"

namespace q = tinyforge::quant;

namespace {

TEST(AvgPool, RoundsHalfAwayAndCountsOnlyInsideTaps) {
  // 1x2x2x1 input, 2x2 window, stride 1, SAME: out 2x2; windows at the right/bottom edge
  // see 2 or 1 input taps (padding is not counted).
  q::PoolSpec s;
  s.in_h = s.in_w = 2, s.channels = 1, s.filter_h = s.filter_w = 2;
  s.padding = q::TflitePadding(q::PaddingType::kSame, 2, 2, 2, 2, 1, 1, 1, 1);
  auto p = q::MakePoolParams(s, {0.1f, 0}, {0.1f, 0});
  ASSERT_TRUE(p.ok()) << p.error().message();
  const int8_t in[] = {1, 2, 2, 2};
  int8_t out[4];
  s8_avgpool__ref(&*p, in, out);
  EXPECT_EQ(out[0], 2);  // 7 / 4 = 1.75 -> 2
  EXPECT_EQ(out[1], 2);  // (2 + 2) / 2
  EXPECT_EQ(out[2], 2);  // (2 + 2) / 2
  EXPECT_EQ(out[3], 2);  // 2 / 1
  const int8_t neg[] = {-1, -2, -2, -3};
  s8_avgpool__ref(&*p, neg, out);
  EXPECT_EQ(out[0], -2);  // -8 / 4
  EXPECT_EQ(out[1], -3);  // -5 / 2 = -2.5 -> -3 (away from zero)
  EXPECT_EQ(out[2], -3);  // -5 / 2
  EXPECT_EQ(out[3], -3);
}

TEST(MaxPool, ClampsToActivation) {
  q::PoolSpec s;
  s.in_h = 1, s.in_w = 4, s.channels = 1, s.filter_h = 1, s.filter_w = 2, s.stride_w = 2;
  s.activation = q::Activation::kRelu;
  auto p = q::MakePoolParams(s, {0.1f, -5}, {0.1f, -5});
  ASSERT_TRUE(p.ok()) << p.error().message();
  const int8_t in[] = {-100, -20, 7, 3};
  int8_t out[2];
  s8_maxpool__ref(&*p, in, out);
  EXPECT_EQ(out[0], -5);  // max -20, clamped to the zero point (ReLU)
  EXPECT_EQ(out[1], 7);
}

// Seeded random data for the in-place tests: per-channel requantization (multiplier in
// [2^30, 2^31), shift in [-9, -1], bias in [-2000, 2000)) and int8 values.
struct RandomData {
  explicit RandomData(uint32_t s) : seed(s) {}
  uint32_t seed;
  int32_t Next() {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<int32_t>(seed >> 8);
  }
  std::vector<int8_t> Bytes(int32_t n) {
    std::vector<int8_t> v(static_cast<size_t>(n));
    for (int8_t& x : v) x = static_cast<int8_t>(Next());
    return v;
  }
  // Sets p's c channels' multiplier and shift (held here) and returns their bias.
  template <class P>
  const int32_t* Channels(P* p, int32_t c) {
    mult.resize(static_cast<size_t>(c)), shift.resize(static_cast<size_t>(c));
    bias.resize(static_cast<size_t>(c));
    for (int32_t i = 0; i < c; ++i) {
      mult[i] = (1 << 30) + (Next() & 0x3fffffff);
      shift[i] = -(Next() % 9) - 1;
      bias[i] = Next() % 4000 - 2000;
    }
    p->multiplier = mult.data(), p->shift = shift.data();
    return bias.data();
  }
  std::vector<int32_t> mult, shift, bias;
};

TEST(Dwconv, InPlaceEqualsOutOfPlace) {
  // s8_dwconv__ref with output == input (a host running an M55 program's in-place depthwise,
  // kernels/dwconv/dwconv.h) against its own out-of-place result, on DS-CNN's shape and
  // odd ones, both roundings and a dilated kernel.
  struct Shape {
    int32_t h, w, c, k, dilation, rounding;
  };
  const Shape shapes[] = {{25, 5, 64, 3, 1, TF_ROUNDING_DOUBLE}, {7, 9, 5, 3, 1, TF_ROUNDING_SINGLE},
                          {6, 6, 17, 1, 1, TF_ROUNDING_DOUBLE}, {8, 5, 3, 3, 2, TF_ROUNDING_SINGLE},
                          {1, 1, 9, 3, 1, TF_ROUNDING_DOUBLE}};
  RandomData rnd(12345);
  for (const Shape& sh : shapes) {
    s8_dwconv_params p{};
    p.batches = 1;
    p.in_h = p.out_h = sh.h, p.in_w = p.out_w = sh.w, p.in_c = p.out_c = sh.c;
    p.depth_multiplier = 1, p.k_h = p.k_w = sh.k;
    p.stride_h = p.stride_w = 1, p.dilation_h = p.dilation_w = sh.dilation;
    p.pad_top = p.pad_left = (sh.k - 1) * sh.dilation / 2;
    p.input_offset = 7, p.output_offset = -3, p.act_min = -128, p.act_max = 127;
    p.rounding = sh.rounding;
    ASSERT_TRUE(s8_dwconv_mve_in_place(p)) << sh.h << "x" << sh.w << "x" << sh.c;
    const int32_t* bias = rnd.Channels(&p, sh.c);
    const int32_t n = sh.h * sh.w * sh.c;
    const std::vector<int8_t> in = rnd.Bytes(n), w = rnd.Bytes(sh.k * sh.k * sh.c);
    std::vector<int8_t> want(n);
    s8_dwconv__ref(&p, in.data(), w.data(), bias, want.data(), nullptr);
    std::vector<int8_t> scratch(static_cast<size_t>(s8_dwconv_mve_scratch_bytes(p)));
    ASSERT_GE(scratch.size(), static_cast<size_t>(sh.h * sh.w));
    std::vector<int8_t> io = in;
    s8_dwconv__ref(&p, io.data(), w.data(), bias, io.data(), scratch.data());
    EXPECT_EQ(io, want) << sh.h << "x" << sh.w << "x" << sh.c;
  }
}

TEST(Conv, InPlaceEqualsOutOfPlace) {
  // s8_conv__ref with output == input (a host running an in-place pointwise conv of an M55
  // or M4 program, kernels/conv/conv.h) against its own out-of-place result: DS-CNN's
  // 25x5x64 (as the planner encodes it, [125, 1]), odd shapes, batches, both roundings.
  struct Shape {
    int32_t batches, h, w, c, rounding;
  };
  const Shape shapes[] = {{1, 125, 1, 64, TF_ROUNDING_DOUBLE}, {1, 7, 9, 5, TF_ROUNDING_SINGLE},
                          {2, 3, 4, 17, TF_ROUNDING_DOUBLE}, {1, 1, 1, 1, TF_ROUNDING_SINGLE}};
  RandomData rnd(777);
  for (const Shape& sh : shapes) {
    s8_conv_params p{};
    p.batches = sh.batches;
    p.in_h = p.out_h = sh.h, p.in_w = p.out_w = sh.w, p.in_c = p.out_c = p.filter_in_c = sh.c;
    p.k_h = p.k_w = 1, p.stride_h = p.stride_w = 1, p.dilation_h = p.dilation_w = 1;
    p.input_offset = 128, p.output_offset = -5, p.act_min = -128, p.act_max = 127;
    p.rounding = sh.rounding;
    ASSERT_TRUE(s8_conv_same_pixels(p)) << sh.h << "x" << sh.w << "x" << sh.c;
    const int32_t* bias = rnd.Channels(&p, sh.c);
    const int32_t n = sh.batches * sh.h * sh.w * sh.c;
    const std::vector<int8_t> in = rnd.Bytes(n), w = rnd.Bytes(sh.c * sh.c);
    std::vector<int8_t> want(n);
    s8_conv__ref(&p, in.data(), w.data(), bias, want.data(), nullptr);
    std::vector<int8_t> scratch(static_cast<size_t>(sh.c));
    std::vector<int8_t> io = in;
    s8_conv__ref(&p, io.data(), w.data(), bias, io.data(), scratch.data());
    EXPECT_EQ(io, want) << sh.h << "x" << sh.w << "x" << sh.c;
  }
}

TEST(Pad, FillsWithZeroPoint) {
  const int32_t dims[] = {1, 2, 1, 1};
  const std::pair<int32_t, int32_t> pads[] = {{0, 0}, {1, 2}, {0, 1}, {0, 0}};
  auto p = q::MakePadParams(dims, pads, {0.5f, 9}, {0.5f, 9});
  ASSERT_TRUE(p.ok()) << p.error().message();
  const int8_t in[] = {1, 2};
  int8_t out[10];
  s8_pad__ref(&*p, in, out);
  const int8_t want[] = {9, 9, 1, 9, 2, 9, 9, 9, 9, 9};  // 5 rows x 2 cols
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], want[i]) << i;
}

TEST(Concat, CopiesOrRequantizesPerInput) {
  const std::vector<std::vector<int32_t>> dims = {{1, 2}, {1, 1}};
  const q::TensorQuant quants[] = {{0.5f, 1}, {1.0f, 0}};
  auto kp = q::MakeConcatParams(dims, -1, quants, {0.5f, 1}, q::ConcatMode::kRequantizeMismatched);
  ASSERT_TRUE(kp.ok()) << kp.error().message();
  const s8_concat_params p = kp->Bind();
  EXPECT_EQ(kp->inputs[0].requantize, 0);
  EXPECT_EQ(kp->inputs[1].requantize, 1);
  const int8_t a[] = {-7, 100}, b[] = {60};
  const int8_t* ins[] = {a, b};
  int8_t out[3];
  s8_concat__ref(&p, ins, out);
  EXPECT_EQ(out[0], -7);
  EXPECT_EQ(out[1], 100);
  EXPECT_EQ(out[2], 121);  // 60 * (1.0 / 0.5) + 1
  // TFLM's own CONCATENATION copies bytes whatever the parameters.
  auto copy = q::MakeConcatParams(dims, -1, quants, {0.5f, 1}, q::ConcatMode::kCopyLikeTflm);
  ASSERT_TRUE(copy.ok());
  const s8_concat_params pc = copy->Bind();
  s8_concat__ref(&pc, ins, out);
  EXPECT_EQ(out[2], 60);
}

TEST(Quantize, RoundsHalfAwayInFloatAndSaturates) {
  auto p = q::MakeQuantizeParams(6, {0.5f, -3});
  ASSERT_TRUE(p.ok());
  const float in[] = {0.25f, -0.25f, 0.7f, 1000.0f, -1000.0f, 0.0f};
  int8_t out[6];
  s8_quantize__ref(&*p, in, out);
  EXPECT_EQ(out[0], -2);  // 0.5 -> 1, + zp
  EXPECT_EQ(out[1], -4);  // -0.5 -> -1
  EXPECT_EQ(out[2], -2);  // 1.4 -> 1
  EXPECT_EQ(out[3], 127);
  EXPECT_EQ(out[4], -128);
  EXPECT_EQ(out[5], -3);
}

TEST(Mean, GlobalAverageOfConstantIsIdentityWithSameParams) {
  const int32_t dims[] = {1, 3, 3, 2};
  const int32_t axes[] = {1, 2};
  auto p = q::MakeMeanParams(dims, axes, {0.25f, -4}, {0.25f, -4});
  ASSERT_TRUE(p.ok()) << p.error().message();
  std::vector<int8_t> in(18);
  for (size_t i = 0; i < in.size(); ++i) in[i] = (i % 2) ? 17 : -90;
  int8_t out[2];
  s8_mean__ref(&*p, in.data(), out);
  EXPECT_EQ(out[0], -90);
  EXPECT_EQ(out[1], 17);
}

// Every variant a family's .inc lists must be declared by its header, and linked when this
// build has its instruction set (ref and scalar always; dsp and mve only on those cores):
// the .inc files are what the compiler's kernel table and the variant tests iterate over.
#define TF_TEST_FN_ref(symbol) reinterpret_cast<void (*)()>(&symbol)
#define TF_TEST_FN_scalar(symbol) reinterpret_cast<void (*)()>(&symbol)
#if TF_HAVE_DSP
#define TF_TEST_FN_dsp(symbol) reinterpret_cast<void (*)()>(&symbol)
#else
#define TF_TEST_FN_dsp(symbol) (static_cast<void>(sizeof(&symbol)), nullptr)  // declared only
#endif
#if TF_HAVE_MVE
#define TF_TEST_FN_mve(symbol) reinterpret_cast<void (*)()>(&symbol)
#else
#define TF_TEST_FN_mve(symbol) (static_cast<void>(sizeof(&symbol)), nullptr)
#endif
TEST(KernelLists, EveryListedVariantIsDeclaredAndLinked) {
  struct Entry {
    const char* op;
    const char* symbol;
    const char* isa;
    void (*fn)();
  };
#define TF_KERNEL_ENTRY(op, symbol, isa, scratch) {#op, #symbol, #isa, TF_TEST_FN_##isa(symbol)},
  const Entry entries[] = {
#define TF_KERNEL TF_KERNEL_ENTRY
#define TF_KERNEL_PATH(op, kernel, path, isa, pred)
#define TF_KERNEL_STREAM(symbol, pixels)
#define TF_FAMILY(f) TF_FAMILY_PATH(f, inc)
#include "kernels/families.def"
#undef TF_KERNEL
#undef TF_KERNEL_PATH
#undef TF_KERNEL_STREAM
  };
#undef TF_KERNEL_ENTRY
  const std::set<std::string> op_kinds = {
#define TF_OP_KIND(op, Kind, Params) #op,
#include "kernels/families.def"
  };
  std::set<std::string> ops_with_ref, ops;
  for (const Entry& e : entries) {
    ops.insert(e.op);
    if (std::string(e.isa) == "ref") {
      EXPECT_TRUE(ops_with_ref.insert(e.op).second) << e.op;
    }
    const bool linked = std::string(e.isa) == "ref" || std::string(e.isa) == "scalar";
    if (linked) {
      EXPECT_NE(e.fn, nullptr) << e.symbol;
    }
    // int8 kinds are named after the op ("conv" -> s8_conv__<isa>); float kinds carry
    // their data type in the op name already ("f32_unary" -> f32_unary__<isa>).
    const std::string name = std::string(e.op) + "__" + e.isa;
    const std::string want = std::string(e.op).rfind("f32_", 0) == 0 ? name : "s8_" + name;
    EXPECT_EQ(std::string(e.symbol).rfind(want, 0), 0u)
        << e.symbol << ": variants are named s8_<op>__<isa> (f32 kinds: <op>__<isa>)";
  }
  EXPECT_EQ(ops, op_kinds) << "the .inc op columns are families.def's operator kinds";
  EXPECT_EQ(ops_with_ref, ops) << "every op has exactly one __ref";
}

}  // namespace
