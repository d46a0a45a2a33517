// Program-level checks of the loader: tensor lifetimes (no two tensors live at the same time
// share bytes, except an op's declared in-place partners), the in-place declarations
// against tinyforge/in_place.h, the op a failure names, Inspect before arenas exist, and a
// head-flip campaign over a compiled model: every single-bit flip of the program head, with
// the CRC repaired, is rejected or leaves the output unchanged, except the classes of op
// parameter words the compiler may write with other values (asserted exactly), and the
// consistency checks of format 3 (zero points, rounding, padding, clamps) one by one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "emit/emitter.h"
#include "harness.h"
#include "import/tflite/tflite_import.h"
#include "quant/kernel_params.h"
#include "tinyforge/in_place.h"
#include "tinyforge/softmax_scale.h"
#include "tinyforge/window.h"

namespace tinyforge::rt {
namespace {

using testing::Builder;
using testing::Loaded;

const s8_logistic_params kLogistic{4, -2, 57, 1717986918, 1};

// fc(in) -> a; logistic(a) -> b; add(a, b) -> c: `a` is live from op 0 to op 2.
struct Chain {
  Builder b{256};
  int32_t in, a, bt, c;
  explicit Chain(uint32_t b_offset) {
    s8_fc_params fc{1, 8, 4, 3, -2, 0, nullptr, nullptr, -128, 127, TF_ROUNDING_DOUBLE};
    in = b.Arena(fmt::kInt8, 0, 8);
    a = b.Arena(fmt::kInt8, 16, 4);
    bt = b.Arena(fmt::kInt8, b_offset, 4);
    c = b.Arena(fmt::kInt8, 64, 4);
    b.Op(KernelId("s8_fc__ref"),
         {in, b.Const(std::vector<int8_t>(32, 3), fmt::kInt8), fmt::kNoTensor,
          b.Const(std::vector<int32_t>{1 << 30}, fmt::kInt32),
          b.Const(std::vector<int32_t>{-3}, fmt::kInt32), a, fmt::kNoTensor},
         emit::EncodeParams(fc));
    b.Op(KernelId("s8_logistic__ref"), {a, bt}, emit::EncodeParams(kLogistic));
    s8_add_params add{{{1, 1, 1, 1, 1, 4}, {0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 1}},
                      5, -3, 20, 1 << 30, -1, 1288490189, -2, 1 << 30, -17, 3, -128, 127,
                      TF_ROUNDING_DOUBLE, 0, 0, 0, 0};  // the program's rounding: the FC's
    b.Op(KernelId("s8_add__ref"), {a, bt, c}, emit::EncodeParams(add));
    b.Input(in, {1, 8});
    b.Output(c, {1, 4});
  }
};

TEST(Lifetimes, DisjointTensorsLoad) {
  Chain ch(32);
  Loaded l(ch.b.Image(), testing::RegionSizes(ch.b.p));
  EXPECT_EQ(l.status, Status::kOk) << StatusText(l.status);
}

TEST(Lifetimes, ATensorOverwrittenWhileStillLiveIsRejected) {
  // b written exactly over a (logistic allows exact in place, and the harness declares
  // it), but add still reads a after: the op-level check alone accepts this program.
  Chain ch(16);
  EXPECT_EQ(ch.b.p.ops[1].in_place_input, 0);
  Loaded l(ch.b.Image(), testing::RegionSizes(ch.b.p));
  EXPECT_EQ(l.status, Status::kLiveOverlap);
  EXPECT_EQ(l.model.error_op(), 1);
  EXPECT_EQ(l.model.error_kernel(), KernelId("s8_logistic__ref"));
  // Partial overlap of a live tensor (c over the input, which is live from before op 0
  // to op 0 only, is fine; c over a is not).
  Chain partial(32);
  partial.b.p.tensors[static_cast<size_t>(partial.c)].offset = 18;
  Loaded lp(partial.b.Image(), testing::RegionSizes(partial.b.p));
  EXPECT_EQ(lp.status, Status::kLiveOverlap);
  EXPECT_EQ(lp.model.error_op(), 2);
  Chain reuse(32);
  reuse.b.p.tensors[static_cast<size_t>(reuse.c)].offset = 0;  // the input's bytes, dead
  Loaded lr(reuse.b.Image(), testing::RegionSizes(reuse.b.p));
  EXPECT_EQ(lr.status, Status::kOk) << StatusText(lr.status);
}

// A chain of kLong logistic ops (tensors in four batches of the check), each tensor at one of
// four offsets in turn, so bytes are reused every four steps, but tensors 5 and 150 at their
// own shared bytes; with `keep_early`, a final add also reads tensor 5, which is then live
// when tensor 150 is written (batches 0 and 2 must still be compared).
Builder LongChain(bool keep_early) {
  constexpr int kLong = 200;
  Builder b(256);
  std::vector<int32_t> t;
  for (int k = 0; k <= kLong; ++k) {
    // Tensors 5 and 150 (batches 0 and 2) alone share bytes 64..67.
    const uint32_t at = k == 5 || k == 150 ? 64 : static_cast<uint32_t>(16 * (k % 4));
    t.push_back(b.Arena(fmt::kInt8, at, 4));
  }
  for (int k = 0; k < kLong; ++k) {
    b.Op(KernelId("s8_logistic__ref"), {t[static_cast<size_t>(k)], t[static_cast<size_t>(k) + 1]},
         emit::EncodeParams(kLogistic));
  }
  int32_t out = t.back();
  if (keep_early) {
    out = b.Arena(fmt::kInt8, 128, 4);
    s8_add_params add{{{1, 1, 1, 1, 1, 4}, {0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 1}},
                      128, 128, 20, 1 << 30, -1, 1 << 30, -1, 1 << 30, -17, -128, -128, 127,
                      TF_ROUNDING_DOUBLE, 0, 0, 0, 0};
    b.Op(KernelId("s8_add__ref"), {t.back(), t[5], out}, emit::EncodeParams(add));
  }
  b.Input(t.front(), {4});
  b.Output(out, {4}, 1.0f / 256, -128);
  return b;
}

TEST(Lifetimes, FarApartTensorsAreComparedWhenLiveTogether) {
  Builder reuse = LongChain(false);
  Loaded ok(reuse.Image(), testing::RegionSizes(reuse.p));
  EXPECT_EQ(ok.status, Status::kOk) << StatusText(ok.status);
  Builder kept = LongChain(true);
  Loaded bad(kept.Image(), testing::RegionSizes(kept.p));
  EXPECT_EQ(bad.status, Status::kLiveOverlap) << StatusText(bad.status);
}

// logistic(in) -> out at the same bytes, then out is the program output.
Builder InPlaceLogistic() {
  Builder b(64);
  const int32_t in = b.Arena(fmt::kInt8, 0, 4);
  const int32_t out = b.Arena(fmt::kInt8, 0, 4);
  b.Op(KernelId("s8_logistic__ref"), {in, out}, emit::EncodeParams(kLogistic));
  b.Input(in, {4});
  b.Output(out, {4}, 1.0f / 256, -128);
  return b;
}

TEST(Lifetimes, DeclaredInPlacePartnersAreAcceptedOthersAreNot) {
  Builder declared = InPlaceLogistic();
  ASSERT_EQ(declared.p.ops[0].in_place_input, 0);
  ASSERT_EQ(declared.p.ops[0].in_place_output, 1);
  Loaded ok(declared.Image(), testing::RegionSizes(declared.p));
  EXPECT_EQ(ok.status, Status::kOk) << StatusText(ok.status);

  Builder undeclared = InPlaceLogistic();
  undeclared.p.ops[0].in_place_input = undeclared.p.ops[0].in_place_output = fmt::kNoSlot;
  Loaded l(undeclared.Image(), testing::RegionSizes(undeclared.p));
  EXPECT_EQ(l.status, Status::kLiveOverlap);
  EXPECT_EQ(l.model.error_op(), 0);
}

TEST(Lifetimes, InPlaceDeclarationsMustBeAllowedByTheOperator) {
  struct Case {
    uint8_t in, out;
    Status want;
  };
  const Case cases[] = {
      {1, 0, Status::kBadInPlace},               // reversed: slot 1 is not an input
      {0, 0, Status::kBadInPlace},               // the same slot
      {0, 2, Status::kBadInPlace},               // no such operand
      {0, fmt::kNoSlot, Status::kBadInPlace},    // half a declaration
      {fmt::kNoSlot, 1, Status::kBadInPlace},
  };
  for (const Case& c : cases) {
    Builder b = InPlaceLogistic();
    b.p.ops[0].in_place_input = c.in;
    b.p.ops[0].in_place_output = c.out;
    Loaded l(b.Image(), testing::RegionSizes(b.p));
    EXPECT_EQ(l.status, c.want) << int{c.in} << " " << int{c.out} << ": " << StatusText(l.status);
    EXPECT_EQ(l.model.error_op(), 0);
  }
  // softmax has no in-place rule: a declaration is refused even where bytes do not overlap.
  Builder b(64);
  const int32_t in = b.Arena(fmt::kInt8, 0, 12);
  const int32_t out = b.Arena(fmt::kInt8, 16, 12);
  b.Op(KernelId("s8_softmax__ref"), {in, out, fmt::kNoTensor},
       emit::EncodeParams(s8_softmax_params{1, 12, 1717986918, 23, -248}));
  b.p.ops[0].in_place_input = 0;
  b.p.ops[0].in_place_output = 1;
  b.Input(in, {12});
  b.Output(out, {12}, 1.0f / 256, -128);
  Loaded l(b.Image(), testing::RegionSizes(b.p));
  EXPECT_EQ(l.status, Status::kBadInPlace);
  EXPECT_EQ(l.model.error_kernel(), KernelId("s8_softmax__ref"));
  // The rule table itself: one definition, also what the compiler offers.
  EXPECT_TRUE(InPlaceAllowed(OpKind::kAdd, false, abi::kBinIn2, abi::kBinOut));
  // Streamed, an ADD only ends a pipe (its window slot; the pipe check refuses the rest).
  EXPECT_TRUE(InPlaceAllowed(OpKind::kAdd, true, abi::kBinIn1, abi::kBinOut));
  EXPECT_FALSE(InPlaceAllowed(OpKind::kAdd, true, abi::kBinIn1, abi::kBinIn2));
  EXPECT_FALSE(InPlaceAllowed(OpKind::kMul, true, abi::kBinIn1, abi::kBinOut));
  EXPECT_TRUE(InPlaceAllowed(OpKind::kConv, true, abi::kConvIn, abi::kConvOut));
  // A conv or depthwise conv may also be exact in place in one call (its validator checks
  // the kernel: tests below).
  EXPECT_TRUE(InPlaceAllowed(OpKind::kConv, false, abi::kConvIn, abi::kConvOut));
  EXPECT_TRUE(InPlaceAllowed(OpKind::kDwconv, false, abi::kConvIn, abi::kConvOut));
  EXPECT_TRUE(InPlaceAllowed(OpKind::kDwconv, true, abi::kConvIn, abi::kConvOut));
  EXPECT_FALSE(InPlaceAllowed(OpKind::kFc, false, abi::kConvIn, abi::kConvOut));
}

TEST(Lifetimes, AStreamedAddOutsideAPipeIsRefused) {
  // An ADD streams only as the last member of a pipe (docs/decisions.md 99): with the
  // STREAM flag and a line buffer alone, or marked PIPE_OUT, it is a bad op.
  for (uint32_t flags : {fmt::kOpFlagStream, fmt::kOpFlagStream | fmt::kOpFlagPipeOut}) {
    Chain ch(32);
    emit::ProgramOp& add = ch.b.p.ops[2];
    add.flags |= flags;
    add.stream_rows = 1;
    add.operands.push_back(ch.b.Arena(fmt::kInt8, 96, 4));
    Loaded l(ch.b.Image(), testing::RegionSizes(ch.b.p));
    EXPECT_EQ(l.status, Status::kBadOp) << flags << ": " << StatusText(l.status);
    EXPECT_EQ(l.model.error_op(), 2);
  }
}

TEST(Lifetimes, InspectChecksTheProgramWithoutArenas) {
  Chain ch(32);
  const std::vector<uint8_t> image = ch.b.Image();
  testing::Aligned a(image.size());
  std::memcpy(a.data(), image.data(), image.size());
  tf_model_def def{};
  def.program = a.data();
  def.program_size = static_cast<uint32_t>(image.size());
  Model m;
  ASSERT_EQ(m.Inspect(def), Status::kOk);
  ASSERT_EQ(m.num_regions(), 1u);
  EXPECT_EQ(m.region_size(0), 256u);
  EXPECT_FALSE(m.ready());
  // A region size no arena could hold is caught by the CRC before anything reads it.
  uint8_t* head = a.data();
  const uint32_t sections = fmt::LoadU32(head + fmt::kOffSectionCount);
  for (uint32_t s = 0; s < sections; ++s) {
    const uint8_t* e = head + fmt::kHeaderSize + s * fmt::kSectionEntrySize;
    if (fmt::LoadU32(e) == fmt::kSectionRegions) head[fmt::LoadU32(e + 4) + 19] ^= 0x7f;
  }
  EXPECT_EQ(m.Inspect(def), Status::kBadCrc);
}

// ---- Consistency of the ops with each other and with the tensors --------------------------

// conv 3x3 (SAME) over a 4x4x2 input whose tensors record their quantization (input zero
// point -3, output -4), as the compiler writes them; `edit` changes the parameters and
// `after` the program before it is written.
Status LoadConv(const std::function<void(s8_conv_params&)>& edit,
                const std::function<void(emit::Program&)>& after = {}) {
  Builder b(256);
  const int32_t in = b.Arena(fmt::kInt8, 0, 32), out = b.Arena(fmt::kInt8, 48, 32);
  b.p.tensors[static_cast<size_t>(in)].scale = 0.5f;
  b.p.tensors[static_cast<size_t>(in)].zero_point = -3;
  b.p.tensors[static_cast<size_t>(out)].scale = 0.25f;
  b.p.tensors[static_cast<size_t>(out)].zero_point = -4;
  s8_conv_params c{1, 4, 4, 2, 4, 4, 2, 3, 3, 2, 1, 1, 1, 1, 1, 1, 3, -4, nullptr, nullptr,
                   -128, 127, TF_ROUNDING_SINGLE, 0, 0};
  edit(c);
  b.Op(KernelId("s8_conv__ref"),
       {in, b.Const(std::vector<int8_t>(static_cast<size_t>(2 * c.k_h * c.k_w * 2), 3), fmt::kInt8),
        fmt::kNoTensor,
        b.Const(std::vector<int32_t>(2, 1 << 30), fmt::kInt32),
        b.Const(std::vector<int32_t>(2, -2), fmt::kInt32), out, fmt::kNoTensor},
       emit::EncodeParams(c));
  b.Input(in, {1, 4, 4, 2}, 0.5f, -3);
  b.Output(out, {1, 4, 4, 2}, 0.25f, -4);
  if (after) after(b.p);
  return Loaded(b.Image(), testing::RegionSizes(b.p)).status;
}

TEST(Consistency, ZeroPointsRoundingPaddingAndClampAgreeWithTheTensors) {
  const auto same = [](s8_conv_params&) {};
  EXPECT_EQ(LoadConv(same), Status::kOk);
  // Zero points: the op's offsets are the tensors' zero points.
  EXPECT_EQ(LoadConv([](s8_conv_params& c) { c.output_offset = -5; }), Status::kBadParams);
  EXPECT_EQ(LoadConv([](s8_conv_params& c) { c.input_offset = 4; }), Status::kBadParams);
  // A folded input zero point (offset 0) must be declared, and only for unpadded windows.
  EXPECT_EQ(LoadConv([](s8_conv_params& c) { c.input_offset = 0; }), Status::kBadParams);
  EXPECT_EQ(LoadConv([](s8_conv_params& c) { c.input_offset = 0; },
                     [](emit::Program& p) { p.ops[0].flags |= fmt::kOpFlagZpFolded; }),
            Status::kBadParams);
  const auto unpadded = [](s8_conv_params& c) {
    c.k_h = c.k_w = 1, c.pad_top = c.pad_left = 0, c.input_offset = 0;
  };
  EXPECT_EQ(LoadConv(unpadded,
                     [](emit::Program& p) { p.ops[0].flags |= fmt::kOpFlagZpFolded; }),
            Status::kOk);
  EXPECT_EQ(LoadConv(unpadded), Status::kBadParams);
  // One rounding mode per program.
  EXPECT_EQ(LoadConv(same, [](emit::Program& p) { p.rounding = TF_ROUNDING_DOUBLE; }),
            Status::kBadParams);
  // An int8 input's quantization is its tensor's.
  EXPECT_EQ(LoadConv(same, [](emit::Program& p) { p.io[0].zero_point = -2; }), Status::kBadIo);
  // Padding: TFLite's SAME here; another split must be declared (PADS, which the emitter and
  // the harness set). SAME/VALID make no window of padding only; declared conv pads may (a
  // transposed conv lowered to a 1x1 conv over a zero-stuffed map), pool pads may not.
  const auto top0 = [](s8_conv_params& c) { c.pad_top = 0; };
  EXPECT_EQ(LoadConv(top0), Status::kOk);
  EXPECT_EQ(LoadConv(top0, [](emit::Program& p) { p.ops[0].flags &= ~fmt::kOpFlagPads; }),
            Status::kBadParams);
  EXPECT_EQ(LoadConv([](s8_conv_params& c) { c.pad_top = 3; }), Status::kBadParams);
  const auto stride2 = [](s8_conv_params& c) { c.stride_h = 2; };  // last window: padding
  EXPECT_EQ(LoadConv(stride2), Status::kOk);
  EXPECT_EQ(LoadConv(stride2, [](emit::Program& p) { p.ops[0].flags &= ~fmt::kOpFlagPads; }),
            Status::kBadParams);
  const auto dilated = [](s8_conv_params& c) { c.dilation_w = 2; };  // SAME would pad 2 left
  EXPECT_EQ(LoadConv(dilated), Status::kOk);  // pads 1 left, 3 right: declared
  EXPECT_EQ(LoadConv(dilated, [](emit::Program& p) { p.ops[0].flags &= ~fmt::kOpFlagPads; }),
            Status::kBadParams);
  // Clamps: a fused activation's for the output quantization (relu: the zero point; relu6:
  // zp + 6 / 0.25), else declared (CLAMP).
  EXPECT_EQ(LoadConv([](s8_conv_params& c) { c.act_min = -4; }), Status::kOk);
  EXPECT_EQ(LoadConv([](s8_conv_params& c) { c.act_min = -4, c.act_max = 20; }), Status::kOk);
  const auto clamp = [](s8_conv_params& c) { c.act_min = -127; };
  EXPECT_EQ(LoadConv(clamp), Status::kOk);
  EXPECT_EQ(LoadConv(clamp, [](emit::Program& p) { p.ops[0].flags &= ~fmt::kOpFlagClamp; }),
            Status::kBadParams);
  EXPECT_EQ(LoadConv([](s8_conv_params& c) { c.act_max = 21; },
                     [](emit::Program& p) { p.ops[0].flags &= ~fmt::kOpFlagClamp; }),
            Status::kBadParams);
}

// A k x k conv (SAME) over 4x4x8 into 8 channels, its output exactly over its input when
// `in_place` (declared partners), run by `kernel` with 2 KiB of scratch (__ref: none).
Status LoadConvInPlace(const char* kernel, int32_t k, bool in_place) {
  const bool ref = std::string(kernel) == "s8_conv__ref";
  Builder b(4096);
  const int32_t in = b.Arena(fmt::kInt8, 0, 128);
  const int32_t out = b.Arena(fmt::kInt8, in_place ? 0 : 128, 128);
  const int32_t scratch = ref ? fmt::kNoTensor : b.Arena(fmt::kInt8, 256, 2048);
  for (int32_t t : {in, out}) {
    b.p.tensors[static_cast<size_t>(t)].scale = 0.5f;
    b.p.tensors[static_cast<size_t>(t)].zero_point = -3;
  }
  s8_conv_params c{1, 4, 4, 8, 4, 4, 8, k, k, 8, 1, 1, 1, 1, k / 2, k / 2, 3, -3, nullptr,
                   nullptr, -128, 127, TF_ROUNDING_SINGLE, 0, 0};
  b.Op(KernelId(kernel),
       {in, b.Const(std::vector<int8_t>(static_cast<size_t>(8 * k * k * 8), 3), fmt::kInt8),
        fmt::kNoTensor, b.Const(std::vector<int32_t>(8, 1 << 30), fmt::kInt32),
        b.Const(std::vector<int32_t>(8, -2), fmt::kInt32), out,
        scratch},
       emit::EncodeParams(c));
  if (in_place) {
    b.p.ops[0].in_place_input = abi::kConvIn;
    b.p.ops[0].in_place_output = abi::kConvOut;
  }
  b.Input(in, {1, 4, 4, 8}, 0.5f, -3);
  b.Output(out, {1, 4, 4, 8}, 0.5f, -3);
  return Loaded(b.Image(), testing::RegionSizes(b.p)).status;
}

TEST(Consistency, ConvExactlyInPlaceOnlyWhereTheKernelIs) {
  // tinyforge/in_place.h, ConvInPlace: a 1x1 stride-1 conv keeping its shape, by the
  // variants that copy or widen a tile's pixels first (a host runs them as __ref).
  EXPECT_EQ(LoadConvInPlace("s8_conv__mve", 1, false), Status::kOk);
  EXPECT_EQ(LoadConvInPlace("s8_conv__mve", 1, true), Status::kOk);
  EXPECT_EQ(LoadConvInPlace("s8_conv__dsp", 1, true), Status::kOk);
  EXPECT_EQ(LoadConvInPlace("s8_conv__scalar", 1, true), Status::kOk);
  // Not __ref (it has no scratch to copy a pixel into); a 3x3 window reads its neighbours.
  EXPECT_EQ(LoadConvInPlace("s8_conv__ref", 1, false), Status::kOk);
  EXPECT_EQ(LoadConvInPlace("s8_conv__ref", 1, true), Status::kBadAlias);
  EXPECT_EQ(LoadConvInPlace("s8_conv__mve", 3, false), Status::kOk);
  EXPECT_EQ(LoadConvInPlace("s8_conv__mve", 3, true), Status::kBadAlias);
}

// A 3x3 SAME conv over 4x4x8 into 8 channels (K = 72: s8_conv__mve's pair table) with the
// LEAN op flag (program_format.h): the bias operand holds the bias and the lean words as the
// compiler writes them (s8_conv_mve_lean_word); `edit` changes the words or the op.
Status LoadConvLean(
    const char* kernel, const std::function<void(std::vector<int32_t>&, emit::ProgramOp&)>& edit,
    int32_t shift_entries = 8) {
  Builder b(4096);
  const int32_t in = b.Arena(fmt::kInt8, 0, 128);
  const int32_t out = b.Arena(fmt::kInt8, 128, 128);
  const int32_t scratch = b.Arena(fmt::kInt8, 256, 2048);
  for (int32_t t : {in, out}) {
    b.p.tensors[static_cast<size_t>(t)].scale = 0.5f;
    b.p.tensors[static_cast<size_t>(t)].zero_point = -3;
  }
  const std::vector<int32_t> mult(8, 1 << 30), shift(8, -2);
  std::vector<int8_t> w(8 * 3 * 3 * 8);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(static_cast<int>(i * 7) % 19 - 9);
  std::vector<int32_t> bias = {5, -7, 100, 0, 3, -1000, 42, 9};
  s8_conv_params c{1, 4, 4, 8, 4, 4, 8, 3, 3, 8, 1, 1, 1, 1, 1, 1, 3, -3, nullptr,
                   nullptr, -128, 127, TF_ROUNDING_SINGLE, 0, 0};
  s8_conv_params bound = c;
  bound.multiplier = mult.data();
  bound.shift = shift.data();
  EXPECT_EQ(s8_conv_mve_table_kind(bound), 2);
  const std::vector<int32_t> plain = bias;
  const int32_t words = s8_conv_mve_lean_words(bound);
  bias.resize(plain.size() + static_cast<size_t>(words));
  int32_t* lean = bias.data() + plain.size();
  for (int32_t i = 0; i < words; ++i) {
    lean[i] = s8_conv_mve_lean_word(bound, 2, w.data(), plain.data(), lean, i);
  }
  emit::ProgramOp op;
  op.flags = fmt::kOpFlagLean;
  edit(bias, op);
  const std::vector<int32_t> shifts(shift.begin(), shift.begin() + shift_entries);
  b.Op(KernelId(kernel),
       {in, b.Const(w, fmt::kInt8), b.Const(bias, fmt::kInt32), b.Const(mult, fmt::kInt32),
        b.Const(shifts, fmt::kInt32), out, scratch},
       emit::EncodeParams(c));
  b.p.ops[0].flags |= op.flags;
  b.Input(in, {1, 4, 4, 8}, 0.5f, -3);
  b.Output(out, {1, 4, 4, 8}, 0.5f, -3);
  return Loaded(b.Image(), testing::RegionSizes(b.p)).status;
}

TEST(Consistency, LeanConvTablesMustBeTheKernels) {
  auto as_is = [](std::vector<int32_t>&, emit::ProgramOp&) {};
  EXPECT_EQ(LoadConvLean("s8_conv__mve", as_is), Status::kOk);
  // Any word off (an effective bias, a table's bias, multiplier, shift) is refused at init.
  for (size_t word : {8u, 15u, 16u, 20u, 24u, 63u}) {
    EXPECT_EQ(LoadConvLean("s8_conv__mve",
                           [&](std::vector<int32_t>& bias, emit::ProgramOp&) { bias[word] += 1; }),
              Status::kBadParams)
        << "word " << word;
  }
  // Too few words; the flag on a variant without a lean form.
  EXPECT_EQ(LoadConvLean("s8_conv__mve",
                         [](std::vector<int32_t>& bias, emit::ProgramOp&) { bias.pop_back(); }),
            Status::kBadParams);
  EXPECT_EQ(LoadConvLean("s8_conv__ref", as_is), Status::kBadParams);
  EXPECT_EQ(LoadConvLean("s8_conv__dsp", as_is), Status::kBadParams);
  // A short shift operand is refused before the tables are read against it.
  EXPECT_EQ(LoadConvLean("s8_conv__mve", as_is, 2), Status::kBadParams);
  // Without the flag, the longer bias is refused too (it is not the op's bias).
  EXPECT_EQ(LoadConvLean("s8_conv__mve",
                         [](std::vector<int32_t>&, emit::ProgramOp& op) { op.flags = 0; }),
            Status::kBadParams);
}

// avgpool over a 5x5x1 input recording its quantization; `edit` changes the parameters (the
// output is out_h x out_w), `after` the program before it is written.
Status LoadPool(const std::function<void(s8_pool_params&)>& edit,
                const std::function<void(emit::Program&)>& after = {}) {
  s8_pool_params q{1, 5, 5, 1, 1, 1, 5, 5, 1, 1, 0, 0, -128, 127};
  edit(q);
  Builder b(256);
  const int32_t in = b.Arena(fmt::kInt8, 0, 25);
  const int32_t out = b.Arena(fmt::kInt8, 32, static_cast<uint32_t>(q.out_h * q.out_w));
  for (int32_t t : {in, out}) {
    b.p.tensors[static_cast<size_t>(t)].scale = 0.5f;
    b.p.tensors[static_cast<size_t>(t)].zero_point = 1;
  }
  b.Op(KernelId("s8_avgpool__ref"), {in, out}, emit::EncodeParams(q));
  b.Input(in, {1, 5, 5, 1}, 0.5f, 1);
  b.Output(out, {1, q.out_h, q.out_w, 1}, 0.5f, 1);
  if (after) after(b.p);
  return Loaded(b.Image(), testing::RegionSizes(b.p)).status;
}

TEST(Consistency, WindowsThatLeaveInputUnreadAreDeclared) {
  using rt::WindowLeavesInputUnread;
  // in, out, k, stride, dilation, pad before
  EXPECT_FALSE(WindowLeavesInputUnread(5, 1, 5, 1, 1, 0));  // global pool
  EXPECT_TRUE(WindowLeavesInputUnread(5, 1, 4, 2, 1, 0));   // last row unread
  EXPECT_TRUE(WindowLeavesInputUnread(5, 1, 4, 2, 1, 1));   // rows -1..2 read, 3 and 4 not
  EXPECT_TRUE(WindowLeavesInputUnread(5, 2, 2, 2, 1, 0));   // floor mode, 2x2/2 over 5
  EXPECT_FALSE(WindowLeavesInputUnread(4, 2, 2, 2, 1, 0));
  EXPECT_TRUE(WindowLeavesInputUnread(4, 2, 1, 2, 1, 0));   // 1x1 at stride 2: gaps
  EXPECT_TRUE(WindowLeavesInputUnread(4, 1, 1, 7, 1, 0));   // one 1-row window over 4
  EXPECT_FALSE(WindowLeavesInputUnread(7, 3, 3, 3, 1, 1));  // 3x3/3 SAME-ish, pad 1
  EXPECT_FALSE(WindowLeavesInputUnread(5, 1, 3, 1, 2, 0));  // dilated span covers 5

  const auto global = [](s8_pool_params&) {};
  EXPECT_EQ(LoadPool(global), Status::kOk);
  EXPECT_EQ(LoadPool(global, [](emit::Program& p) { p.ops[0].flags |= fmt::kOpFlagPartial; }),
            Status::kBadParams);
  // A smaller window at a stride that keeps one output: the last row goes unread.
  const auto smaller = [](s8_pool_params& q) { q.filter_h = 4, q.stride_h = 2; };
  EXPECT_EQ(LoadPool(smaller), Status::kOk);  // declared by the emitter
  EXPECT_EQ(LoadPool(smaller, [](emit::Program& p) { p.ops[0].flags &= ~fmt::kOpFlagPartial; }),
            Status::kBadParams);
  // Floor mode: 2x2 at stride 2 over 5x5 gives 2x2 and leaves the last row and column.
  const auto floor_mode = [](s8_pool_params& q) {
    q.out_h = q.out_w = 2, q.filter_h = q.filter_w = 2, q.stride_h = q.stride_w = 2;
  };
  EXPECT_EQ(LoadPool(floor_mode), Status::kOk);
  EXPECT_EQ(
      LoadPool(floor_mode, [](emit::Program& p) { p.ops[0].flags &= ~fmt::kOpFlagPartial; }),
      Status::kBadParams);
}

// softmax over 12 values whose input records scale `in_scale`; the parameters are the
// compiler's for `beta` (quant::MakeSoftmaxParams).
Status LoadSoftmax(float in_scale, float beta,
                   const std::function<void(emit::Program&)>& after = {}) {
  const int32_t dims[] = {1, 12};
  auto q = quant::MakeSoftmaxParams(dims, beta, {in_scale, 0}, {1.0f / 256, -128});
  if (!q) return Status::kBadParams;
  Builder b(256);
  const int32_t in = b.Arena(fmt::kInt8, 0, 12), out = b.Arena(fmt::kInt8, 16, 12);
  b.p.tensors[static_cast<size_t>(in)].scale = in_scale;
  b.p.tensors[static_cast<size_t>(out)].scale = 1.0f / 256;
  b.p.tensors[static_cast<size_t>(out)].zero_point = -128;
  b.Op(KernelId("s8_softmax__ref"), {in, out, fmt::kNoTensor}, emit::EncodeParams(*q));
  b.Input(in, {1, 12}, in_scale, 0);
  b.Output(out, {1, 12}, 1.0f / 256, -128);
  if (after) after(b.p);
  return Loaded(b.Image(), testing::RegionSizes(b.p)).status;
}

TEST(Consistency, SoftmaxMultiplierIsTheInputScalesUnlessBetaIsDeclared) {
  // The runtime's derivation (tinyforge/softmax_scale.h, no libm) equals the compiler's for
  // beta 1 over scales from 2^-25 to 2^8, every mantissa pattern class.
  testing::Rng rng(11);
  int checked = 0;
  for (int i = 0; i < 20000; ++i) {
    const float scale = std::ldexp(static_cast<float>((1 << 23) | rng.Int(0, (1 << 23) - 1)),
                                   rng.Int(-24, 9) - 24);
    const int32_t dims[] = {1, 4};
    auto want = quant::MakeSoftmaxParams(dims, 1.0f, {scale, 0}, {1.0f / 256, -128});
    int32_t multiplier = 0, shift = 0;
    const bool got = rt::SoftmaxUnitBetaMultiplier(scale, &multiplier, &shift);
    ASSERT_EQ(got, want.ok()) << scale;
    if (!got) continue;
    ASSERT_EQ(multiplier, want->input_multiplier) << scale;
    ASSERT_EQ(shift, want->input_left_shift) << scale;
    ++checked;
  }
  EXPECT_GT(checked, 15000);
  for (float edge : {std::ldexp(1.0f, -26), std::ldexp(1.0f, -25), std::ldexp(1.0f, 5),
                     std::ldexp(1.0f, 6), 1e30f}) {
    const int32_t dims[] = {1, 4};
    auto want = quant::MakeSoftmaxParams(dims, 1.0f, {edge, 0}, {1.0f / 256, -128});
    int32_t multiplier = 0, shift = 0;
    const bool got = rt::SoftmaxUnitBetaMultiplier(edge, &multiplier, &shift);
    ASSERT_EQ(got, want.ok()) << edge;
    if (got) {
      EXPECT_EQ(std::make_pair(multiplier, shift),
                std::make_pair(want->input_multiplier, want->input_left_shift))
          << edge;
    }
  }

  EXPECT_EQ(LoadSoftmax(0.1f, 1.0f), Status::kOk);
  EXPECT_EQ(LoadSoftmax(0.1f, 1.0f, [](emit::Program& p) { p.ops[0].flags |= fmt::kOpFlagBeta; }),
            Status::kBadParams);
  EXPECT_EQ(LoadSoftmax(0.1f, 0.5f), Status::kOk);  // another beta: declared by the emitter
  EXPECT_EQ(LoadSoftmax(0.1f, 0.5f, [](emit::Program& p) { p.ops[0].flags &= ~fmt::kOpFlagBeta; }),
            Status::kBadParams);
}

TEST(Consistency, OlderProgramsAreRefusedWithOneLine) {
  Chain ch(32);
  std::vector<uint8_t> image = ch.b.Image();
  const uint16_t v2 = 2;
  std::memcpy(image.data() + fmt::kOffVersionMajor, &v2, 2);
  Loaded l(image, testing::RegionSizes(ch.b.p));
  EXPECT_EQ(l.status, Status::kBadVersion);
  EXPECT_NE(std::string(StatusText(l.status)).find("recompile"), std::string::npos);
}

// ---- Head-flip campaign -------------------------------------------------------------------

// The MLPerf Tiny models, where python/tinyforge/reference_models.py looks for them:
// $TINYFORGE_MODELS_DIR, ../shared (or $TINYFORGE_SHARED), .models/ (`make models`).
std::string ModelsDir() {
  if (const char* dir = std::getenv("TINYFORGE_MODELS_DIR")) return dir;
  const char* shared = std::getenv("TINYFORGE_SHARED");
  const std::string from_shared =
      std::string(shared != nullptr ? shared : TF_SOURCE_DIR "/../shared") + "/models/mlperf-tiny";
  std::ifstream probe(from_shared + "/kws_ref_model.tflite");
  return probe ? from_shared : std::string(TF_SOURCE_DIR "/.models/mlperf-tiny");
}

// "kind.wordN": parameter word N of an op of kind `kind`.
std::string ParamName(OpKind kind, uint32_t word) {
  return std::string(OpKindName(kind)) + ".word" + std::to_string(word);
}

void RepairHeadCrc(std::vector<uint8_t>& image) {
  const uint32_t head = fmt::LoadU32(image.data() + fmt::kOffHeadSize);
  if (head < fmt::kHeaderSize || head > image.size()) return;
  const uint32_t crc = fmt::Crc32(image.data() + fmt::kOffHeadCrc + 4,
                                  head - fmt::kOffHeadCrc - 4,
                                  fmt::Crc32(image.data(), fmt::kOffHeadCrc));
  std::memcpy(image.data() + fmt::kOffHeadCrc, &crc, 4);
}

// What `tinyforge run program.bin` does: Inspect, arenas as the program asks (zeroed), Init,
// the input, Run. Returns false if the program is rejected (at any step), else the outputs.
bool RunProgram(const std::vector<uint8_t>& image, const std::vector<int8_t>& input,
                std::vector<uint8_t>* outputs) {
  testing::Aligned program(image.size());
  std::memcpy(program.data(), image.data(), image.size());
  tf_model_def def{};
  def.program = program.data();
  def.program_size = static_cast<uint32_t>(image.size());
  def.kernels = tf_all_kernels;
  def.num_kernels = tf_all_kernels_count;
  Model m;
  if (m.Inspect(def) != Status::kOk) return false;
  uint64_t total = 0;
  for (uint32_t r = 0; r < m.num_regions(); ++r) total += m.region_size(r);
  if (total > (uint64_t{256} << 20)) return false;  // the host's limit (docs/limits.md)
  std::vector<testing::Aligned> arenas;
  std::vector<tf_arena> defs;
  arenas.reserve(m.num_regions());
  for (uint32_t r = 0; r < m.num_regions(); ++r) {
    // Aligned is 16-byte aligned; a flipped larger alignment is reported as misaligned.
    arenas.emplace_back(m.region_size(r));
    defs.push_back({arenas.back().data(), m.region_size(r)});
  }
  def.arenas = defs.data();
  def.num_arenas = static_cast<uint32_t>(defs.size());
  if (m.Init(def) != Status::kOk) return false;
  tf_tensor_info in;
  if (m.num_inputs() != 1 || m.Input(0, &in) != Status::kOk || in.bytes != input.size()) {
    return false;  // the input no longer fits the caller's sample: refused by the caller
  }
  std::memcpy(in.data, input.data(), input.size());
  if (m.Run() != Status::kOk) return false;
  outputs->clear();
  for (int32_t i = 0; i < m.num_outputs(); ++i) {
    tf_tensor_info out;
    if (m.Output(i, &out) != Status::kOk) return false;
    const auto* p = static_cast<const uint8_t*>(out.data);
    outputs->insert(outputs->end(), p, p + out.bytes);
  }
  return true;
}

void FlipCampaign(bool min_ram) {
  const std::string path = ModelsDir() + "/kws_ref_model.tflite";
  auto g = import::ReadTfliteFile(path);
  ASSERT_TRUE(g.ok()) << g.error().message();
  emit::EmitOptions o;
  o.target = "an547";
  o.stream = min_ram ? emit::StreamMode::kMinRam : emit::StreamMode::kOff;
  auto e = emit::EmitProgram(*g, o);
  ASSERT_TRUE(e.ok()) << e.error().message();
  const std::vector<uint8_t>& image = e->image;
  const uint32_t head = e->layout.head_size;
  int declared = 0;
  for (const emit::ProgramOp& op : e->program.ops) declared += op.in_place_input != fmt::kNoSlot;
  EXPECT_GT(declared, 0) << "the campaign should cover declared in-place partners";

  testing::Rng rng(7);
  std::vector<int8_t> input;
  for (const emit::ProgramIo& io : e->program.io) {
    if (!io.output) input = rng.Int8s(e->program.tensors[static_cast<size_t>(io.tensor)].size);
  }
  std::vector<uint8_t> want;
  ASSERT_TRUE(RunProgram(image, input, &want));

  // The op parameter word each head byte belongs to ("" outside parameter words), named by
  // operator and field (kParamNames): a flip there that stays valid is a different program
  // the compiler could have written (docs/decisions.md 49), counted per field.
  std::vector<std::string> param_word(head);
  const uint32_t sections = fmt::LoadU32(image.data() + fmt::kOffSectionCount);
  for (uint32_t s = 0; s < sections; ++s) {
    const uint8_t* entry = image.data() + fmt::kHeaderSize + s * fmt::kSectionEntrySize;
    if (fmt::LoadU32(entry) != fmt::kSectionOps) continue;
    uint32_t pos = fmt::LoadU32(entry + 4);
    for (uint32_t k = 0; k < fmt::LoadU32(entry + 12); ++k) {
      const uint32_t operands = fmt::LoadU16(image.data() + pos + 4);
      const uint32_t params = fmt::LoadU16(image.data() + pos + 6);
      const uint32_t first = pos + fmt::kOpHeaderSize + 4 * operands;
      const KernelInfo* info = FindKernel(fmt::LoadU32(image.data() + pos));
      for (uint32_t b = first; b < first + 4 * params; ++b) {
        param_word[b] = ParamName(info->op, (b - first) / 4);
      }
      pos = first + 4 * params;
    }
  }

  int rejected = 0, same = 0, different = 0;
  std::map<std::string, int> different_params;
  std::string first_different;
  for (uint32_t byte = 0; byte < head; ++byte) {
    if (byte >= fmt::kOffHeadCrc && byte < fmt::kOffHeadCrc + 4) continue;  // the CRC itself
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> flipped = image;
      flipped[byte] ^= static_cast<uint8_t>(1u << bit);
      RepairHeadCrc(flipped);
      std::vector<uint8_t> got;
      if (!RunProgram(flipped, input, &got)) {
        ++rejected;
      } else if (got == want) {
        ++same;
      } else if (!param_word[byte].empty()) {
        ++different_params[param_word[byte]];
      } else {
        ++different;
        if (first_different.empty()) {
          first_different = "byte " + std::to_string(byte) + " bit " + std::to_string(bit);
        }
      }
    }
  }
  int in_params = 0;
  std::string classes;
  for (const auto& [name, n] : different_params) {
    in_params += n;
    classes += " " + name + " " + std::to_string(n);
  }
  std::printf(
      "head %u bytes, %u bit flips: %d rejected, %d same output, %d different output outside "
      "op parameter words, %d inside:%s\n",
      head, 8 * (head - 4), rejected, same, different, in_params, classes.c_str());
  EXPECT_EQ(different, 0) << "first: " << first_different;
  // Inside parameter words too: format 3 left 14 flips with another output on kws (the
  // global average pool's window, now PARTIAL; softmax's input multiplier, now BETA;
  // docs/decisions.md 49), format 4 none.
  EXPECT_EQ(in_params, 0) << classes;
}

// --min-ram: streamed convs and pools, i.e. declared in-place partners (~3 minutes).
TEST(HeadFlips, EveryBitFlipIsRejectedOrHarmless) { FlipCampaign(true); }

}  // namespace
}  // namespace tinyforge::rt
