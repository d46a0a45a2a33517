// The program loader: header and table validation, every single-byte corruption and every
// truncation of a small program rejected with a Status, malformed-but-CRC-valid programs
// rejected by the op validators, arena binding, the C API and the profiling hook.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "harness.h"
#include "tinyforge/kernel_ids.h"
#include "tinyforge/tf_model.h"

namespace tinyforge::rt {
namespace {

using testing::Builder;
using testing::Loaded;

// A small valid program: fully connected 8 -> 4 with bias, then logistic in place.
Builder SmallProgram() {
  Builder b(64);
  s8_fc_params fc{1, 8, 4, 3, -2, 0, nullptr, nullptr, -128, 127, TF_ROUNDING_DOUBLE};
  const int32_t t_in = b.Arena(fmt::kInt8, 0, 8);
  const int32_t t_mid = b.Arena(fmt::kInt8, 16, 4);
  b.Op(KernelId("s8_fc__ref"),
       {t_in,
        b.Const(std::vector<int8_t>{1,  -2, 3, -4, 5,  -6, 7, -8, 1, 1, 1, 1, 2, 2, 2, 2,
                                    -1, 0,  1, 0,  -1, 0,  1, 0,  9, 9, 9, 9, 9, 9, 9, 9},
                fmt::kInt8),
        b.Const(std::vector<int32_t>{10, -20, 30, -40}, fmt::kInt32),
        b.Const(std::vector<int32_t>{1 << 30}, fmt::kInt32),
        b.Const(std::vector<int32_t>{-3}, fmt::kInt32), t_mid, fmt::kNoTensor},
       emit::EncodeParams(fc));
  s8_logistic_params lg{4, -2, 57, 1717986918, 1};
  b.Op(KernelId("s8_logistic__ref"), {t_mid, t_mid}, emit::EncodeParams(lg));
  b.Input(t_in, {1, 8});
  b.Output(t_mid, {1, 4}, 1.0f / 256, -128);
  return b;
}

TEST(Crc32, MatchesZlib) {
  const char* s = "123456789";
  EXPECT_EQ(fmt::Crc32(reinterpret_cast<const uint8_t*>(s), 9), 0xCBF43926u);
  EXPECT_EQ(fmt::Crc32(nullptr, 0), 0u);
  // Piecewise equals whole.
  const uint32_t a = fmt::Crc32(reinterpret_cast<const uint8_t*>(s), 4);
  EXPECT_EQ(fmt::Crc32(reinterpret_cast<const uint8_t*>(s) + 4, 5, a), 0xCBF43926u);
}

TEST(KernelList, IdsAreStableHashesAndEveryIncIsListed) {
  static_assert(KernelId("") == 2166136261u);  // FNV-1a offset basis
  const KernelInfo* conv = FindKernel(KernelId("s8_conv__ref"));
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->op, OpKind::kConv);
  EXPECT_EQ(conv->isa, Isa::kRef);
  EXPECT_EQ(FindKernel(12345u), nullptr);
  // kernels/families.def lists every family folder (a folder with a <family>.inc that it
  // missed would be neither compiled nor dispatched to), and each op column names its OpKind.
  std::ifstream def(TF_SOURCE_DIR "/kernels/families.def");
  std::stringstream text;
  text << def.rdbuf();
  const std::string s = text.str();
  // Every "\n#include TF_FAMILY(<family>)" (no <regex>: GCC 12 warns inside it under
  // -fsanitize, -Werror=maybe-uninitialized).
  std::set<std::string> listed;
  const std::string kFamily = "\n#include TF_FAMILY(";
  for (size_t at = s.find(kFamily); at != std::string::npos; at = s.find(kFamily, at + 1)) {
    const size_t name = at + kFamily.size();
    size_t end = name;
    while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_')) {
      ++end;
    }
    if (end > name && end < s.size() && s[end] == ')') listed.insert(s.substr(name, end - name));
  }
  std::set<std::string> folders;
  for (const auto& d : std::filesystem::directory_iterator(TF_SOURCE_DIR "/kernels")) {
    const std::string name = d.path().filename().string();
    if (d.is_directory() && std::filesystem::exists(d.path() / (name + ".inc"))) {
      folders.insert(name);
    }
  }
  EXPECT_EQ(listed, folders);
  // Symbols are <datatype>_<op>__<isa>: s8_<op>__ for the int8 kinds; the float fallback's
  // kinds carry their datatype in the op name (f32_unary: f32_unary__ref).
  for (const KernelInfo& k : kKernels) {
    const std::string op = OpKindName(k.op);
    const std::string prefix = (op.rfind("f32_", 0) == 0 ? "" : "s8_") + op + "__";
    EXPECT_EQ(std::string(k.symbol).rfind(prefix, 0), 0u) << k.symbol;
  }
  // The host table holds every portable variant.
  std::set<uint32_t> table;
  for (uint32_t i = 0; i < tf_all_kernels_count; ++i) table.insert(tf_all_kernels[i].id);
  for (const KernelInfo& k : kKernels) {
    if (k.isa == Isa::kRef) {
      EXPECT_TRUE(table.count(k.id)) << k.symbol;
    }
  }
}

TEST(Loader, SmallProgramRuns) {
  const Builder b = SmallProgram();
  Loaded l(b.Image(), testing::RegionSizes(b.p));
  ASSERT_EQ(l.status, Status::kOk) << StatusText(l.status);
  EXPECT_EQ(l.model.num_inputs(), 1);
  EXPECT_EQ(l.model.num_outputs(), 1);
  EXPECT_EQ(l.model.num_ops(), 2);
  EXPECT_EQ(l.model.Run(), Status::kOk);
}

TEST(Loader, EverySingleByteCorruptionIsRejected) {
  const Builder b = SmallProgram();
  const std::vector<uint8_t> image = b.Image();
  ASSERT_LT(image.size(), 1024u);
  int cases = 0;
  for (size_t pos = 0; pos < image.size(); ++pos) {
    for (int x = 1; x < 256; ++x) {
      std::vector<uint8_t> bad = image;
      bad[pos] = static_cast<uint8_t>(bad[pos] ^ x);
      Loaded l(bad, testing::RegionSizes(b.p));
      ASSERT_NE(l.status, Status::kOk) << "byte " << pos << " ^ " << x;
      ++cases;
    }
  }
  EXPECT_EQ(cases, static_cast<int>(image.size()) * 255);
}

TEST(Loader, EveryTruncationIsRejected) {
  const Builder b = SmallProgram();
  const std::vector<uint8_t> image = b.Image();
  for (size_t n = 0; n < image.size(); ++n) {
    Loaded l(std::span<const uint8_t>(image.data(), n), testing::RegionSizes(b.p));
    EXPECT_EQ(l.status, Status::kTruncated) << n;
  }
  // A longer buffer than the program is an error too (the size is part of the contract).
  std::vector<uint8_t> longer = image;
  longer.push_back(0);
  EXPECT_EQ(Loaded(longer, testing::RegionSizes(b.p)).status, Status::kBadSize);
}

// CRC-valid programs whose content is wrong: the structural checks must catch them.
TEST(Loader, MalformedTablesAndOpsAreRejected) {
  auto status_of = [](const Builder& b) {
    return Loaded(b.Image(), testing::RegionSizes(b.p)).status;
  };
  {
    Builder b = SmallProgram();
    b.p.tensors[0].offset = 60;  // 8 bytes at 60 in a 64-byte arena
    EXPECT_EQ(status_of(b), Status::kBadTensor);
  }
  {
    Builder b = SmallProgram();
    b.p.tensors[3].offset = 2;  // int32 bias off its alignment
    EXPECT_EQ(status_of(b), Status::kBadTensor);
  }
  {
    Builder b = SmallProgram();
    b.p.tensors[1].location = 3;  // no such region
    EXPECT_EQ(status_of(b), Status::kBadTensor);
  }
  {
    Builder b = SmallProgram();
    b.p.io[0].dims = {1, 9};  // does not match the tensor's 8 bytes
    EXPECT_EQ(status_of(b), Status::kBadIo);
  }
  {
    Builder b = SmallProgram();
    b.p.ops[0].operands.pop_back();  // fc takes 7 operands
    EXPECT_EQ(status_of(b), Status::kBadOp);
  }
  {
    Builder b = SmallProgram();
    b.p.ops[0].operands[0] = 99;  // no such tensor
    EXPECT_EQ(status_of(b), Status::kBadOp);
  }
  {
    Builder b = SmallProgram();
    b.p.ops[0].params[1] = 9;  // in_features 9: input tensor has 8 bytes
    EXPECT_EQ(status_of(b), Status::kBadParams);
  }
  {
    Builder b = SmallProgram();
    b.p.ops[0].params[3] = 200;  // input_offset out of range
    EXPECT_EQ(status_of(b), Status::kBadParams);
  }
  {
    Builder b = SmallProgram();
    b.p.ops[0].kernel_id = 0xdeadbeef;
    EXPECT_EQ(status_of(b), Status::kUnknownKernel);
  }
  {
    Builder b = SmallProgram();
    b.p.ops[0].kernel_id = KernelId("s8_conv__ref");  // fc record, conv kernel
    EXPECT_NE(status_of(b), Status::kOk);
  }
  {
    Builder b = SmallProgram();
    b.p.ops[0].flags = fmt::kOpKnownFlags + 1;  // the next bit: an unknown flag
    EXPECT_EQ(status_of(b), Status::kBadOp);
  }
  {
    Builder b = SmallProgram();  // fc output over its own input: both live at op 0, and
    b.p.tensors[1].offset = 0;   // fc has no in-place partners (lifetime check, first)
    EXPECT_EQ(status_of(b), Status::kLiveOverlap);
  }
  {
    Builder b = SmallProgram();  // a shift of 40 would be undefined behaviour in the kernel
    std::vector<int32_t> bad_shift = {40};
    std::memcpy(b.p.segments[0].bytes.data() + b.p.tensors[5].offset, bad_shift.data(), 4);
    EXPECT_EQ(status_of(b), Status::kBadParams);
  }
  {
    Builder b = SmallProgram();  // logistic into the fc input: partial overlap
    b.p.ops[1].operands[1] = 0;
    EXPECT_NE(status_of(b), Status::kOk);
  }
  {
    Builder b = SmallProgram();
    b.p.regions[0].align = 24;
    EXPECT_EQ(status_of(b), Status::kBadRegion);
  }
}

TEST(Loader, KernelTableMustHoldTheProgramsKernels) {
  const Builder b = SmallProgram();
  // A table with only fc: the logistic op's kernel is missing.
  const tf_kernel_entry only_fc[] = {TF_KERNEL_ENTRY(fc, s8_fc__ref)};
  EXPECT_EQ(Loaded(b.Image(), testing::RegionSizes(b.p), only_fc, 1).status,
            Status::kUnknownKernel);
  const tf_kernel_entry both[] = {TF_KERNEL_ENTRY(fc, s8_fc__ref),
                                  TF_KERNEL_ENTRY(logistic, s8_logistic__ref)};
  EXPECT_EQ(Loaded(b.Image(), testing::RegionSizes(b.p), both, 2).status, Status::kOk);
  const tf_kernel_entry duplicate[] = {TF_KERNEL_ENTRY(fc, s8_fc__ref),
                                       TF_KERNEL_ENTRY(fc, s8_fc__ref)};
  EXPECT_EQ(Loaded(b.Image(), testing::RegionSizes(b.p), duplicate, 2).status,
            Status::kBadKernelTable);
}

TEST(Loader, ArenasMustMatchTheRegions) {
  const Builder b = SmallProgram();
  EXPECT_EQ(Loaded(b.Image(), {63}).status, Status::kArenaTooSmall);
  EXPECT_EQ(Loaded(b.Image(), {}).status, Status::kArenaMissing);
  EXPECT_EQ(Loaded(b.Image(), {64, 64}).status, Status::kArenaMissing);
  Loaded l(b.Image(), {128});
  ASSERT_EQ(l.status, Status::kOk);
  tf_arena shifted = {l.arenas[0].data() + 4, 100};
  l.def.arenas = &shifted;
  EXPECT_EQ(l.model.Init(l.def), Status::kMisaligned);
  EXPECT_FALSE(l.model.ready());
  EXPECT_EQ(l.model.Run(), Status::kNotReady);
}

TEST(Loader, ExternalSegmentsAreBoundAndChecked) {
  const Builder b = SmallProgram();
  const std::vector<uint8_t> image = b.Image();
  auto layout = emit::ReadImageLayout(image);
  ASSERT_TRUE(layout.ok());
  ASSERT_EQ(layout->segments.size(), 1u);
  const auto [off, size] = layout->segments[0];
  // The head alone as the program array, the constants in an array of their own.
  testing::Aligned seg(size);
  std::memcpy(seg.data(), image.data() + off, size);
  tf_segment segments[] = {{seg.data(), size, nullptr}};
  Loaded l(std::span<const uint8_t>(image.data(), off), testing::RegionSizes(b.p));
  EXPECT_EQ(l.status, Status::kTruncated);  // no segment array given yet
  l.def.segments = segments;
  l.def.num_segments = 1;
  ASSERT_EQ(l.model.Init(l.def), Status::kOk);
  EXPECT_EQ(l.model.Run(), Status::kOk);
  seg.data()[5] ^= 1;
  EXPECT_EQ(l.model.Init(l.def), Status::kBadSegment);
}

TEST(Loader, SegmentCopiedToRamIsReadThere) {
  // --hot-constants: tf_segment.ram set, init copies the segment there and binds the copy
  // (the constants' tensors point into it; the CRC is checked on the copy).
  const Builder b = SmallProgram();
  const std::vector<uint8_t> image = b.Image();
  auto layout = emit::ReadImageLayout(image);
  ASSERT_TRUE(layout.ok());
  const auto [off, size] = layout->segments[0];
  testing::Aligned seg(size), ram(size + 16);
  std::memcpy(seg.data(), image.data() + off, size);
  std::memset(ram.data(), 0xA5, size + 16);
  tf_segment segments[] = {{seg.data(), size, ram.data()}};
  Loaded l(std::span<const uint8_t>(image.data(), off), testing::RegionSizes(b.p));
  l.def.segments = segments;
  l.def.num_segments = 1;
  ASSERT_EQ(l.model.Init(l.def), Status::kOk);
  EXPECT_EQ(std::memcmp(ram.data(), seg.data(), size), 0);
  EXPECT_EQ(ram.data()[size], 0xA5);  // exactly `size` bytes written
  EXPECT_EQ(l.model.Run(), Status::kOk);
  // The flash image is not read after init: corrupting it changes nothing until re-init.
  seg.data()[5] ^= 1;
  EXPECT_EQ(l.model.Run(), Status::kOk);
  EXPECT_EQ(l.model.Init(l.def), Status::kBadSegment);
  seg.data()[5] ^= 1;
  segments[0].ram = ram.data() + 8;  // misaligned copy
  EXPECT_EQ(l.model.Init(l.def), Status::kMisaligned);
}

struct ProfileLog {
  std::vector<std::pair<int32_t, int>> events;
};

TEST(CApi, InitRunAccessorsAndProfiler) {
  const Builder b = SmallProgram();
  const std::vector<uint8_t> bytes = b.Image();
  testing::Aligned image(bytes.size()), arena(64);
  std::memcpy(image.data(), bytes.data(), bytes.size());
  const tf_arena arenas[] = {{arena.data(), 64}};
  const tf_kernel_entry kernels[] = {TF_KERNEL_ENTRY(fc, s8_fc__ref),
                                     TF_KERNEL_ENTRY(logistic, s8_logistic__ref)};
  const tf_model_def def = {
      image.data(), static_cast<uint32_t>(bytes.size()), nullptr, 0, arenas, 1, kernels, 2};
  tf_model m;
  EXPECT_EQ(tf_model_init(nullptr, &def), TF_E_NULL_ARGUMENT);
  ASSERT_EQ(tf_model_init(&m, &def), TF_OK);
  EXPECT_EQ(tf_model_num_inputs(&m), 1);
  EXPECT_EQ(tf_model_num_outputs(&m), 1);
  tf_tensor_info in, out;
  ASSERT_EQ(tf_model_input(&m, 0, &in), TF_OK);
  ASSERT_EQ(tf_model_output(&m, 0, &out), TF_OK);
  EXPECT_EQ(tf_model_input(&m, 1, &in), TF_E_BAD_INDEX);
  EXPECT_EQ(in.bytes, 8u);
  EXPECT_EQ(in.rank, 2);
  EXPECT_EQ(in.dims[1], 8);
  EXPECT_EQ(out.zero_point, -128);
  EXPECT_FLOAT_EQ(out.scale, 1.0f / 256);
  ProfileLog log;
  tf_model_set_profiler(
      &m,
      [](void* user, int32_t op, uint32_t, int end) {
        static_cast<ProfileLog*>(user)->events.emplace_back(op, end);
      },
      &log);
  const int8_t x[8] = {1, 2, 3, 4, -5, -6, -7, -8};
  int8_t y[4];
  ASSERT_EQ(tf_model_invoke(&m, x, 8, y, 4), TF_OK);
  EXPECT_EQ(log.events, (std::vector<std::pair<int32_t, int>>{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
  EXPECT_EQ(tf_model_invoke(&m, x, 7, y, 4), TF_E_BAD_INDEX);
  EXPECT_STREQ(tf_status_str(TF_E_BAD_CRC), "program CRC mismatch");
  EXPECT_STREQ(tf_status_str(200), "unknown status");
}

}  // namespace
}  // namespace tinyforge::rt
