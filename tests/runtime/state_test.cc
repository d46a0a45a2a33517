// State kept across runs (program section STATE, docs/program-format.md): the loader checks
// the pairs and keeps the state input live over the whole program; a run copies the state
// output into the input; init and reset set it to its zero point; the C API names the pairs.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "harness.h"
#include "tinyforge/kernel_ids.h"
#include "tinyforge/tf_model.h"

namespace tinyforge::rt {
namespace {

using testing::Builder;
using testing::Loaded;

constexpr float kScale = 1.0f / 256;
constexpr int32_t kZp = -128;
const s8_logistic_params kLogistic{4, kZp, 57, 1717986918, 1};

// s = logistic(s) each run: state input at 0, state output at 16 (int8 [1, 4]).
Builder StateProgram() {
  Builder b(64);
  const int32_t s_in = b.Arena(fmt::kInt8, 0, 4);
  const int32_t s_out = b.Arena(fmt::kInt8, 16, 4);
  b.Op(KernelId("s8_logistic__ref"), {s_in, s_out}, emit::EncodeParams(kLogistic));
  b.Input(s_in, {1, 4}, kScale, kZp);
  b.Output(s_out, {1, 4}, kScale, kZp);
  b.p.state = {{0, 0}};
  return b;
}

std::vector<int8_t> Bytes(const Model& m, bool output) {
  tf_tensor_info info;
  EXPECT_EQ(output ? m.Output(0, &info) : m.Input(0, &info), Status::kOk);
  const auto* p = static_cast<const int8_t*>(info.data);
  return {p, p + info.bytes};
}

// The oracle: the kernel called directly.
std::vector<int8_t> Logistic(const std::vector<int8_t>& x) {
  std::vector<int8_t> y(x.size());
  s8_logistic__ref(&kLogistic, x.data(), y.data());
  return y;
}

TEST(State, InitResetsRunCarriesResetRestarts) {
  const Builder b = StateProgram();
  Loaded l(b.Image(), testing::RegionSizes(b.p));
  ASSERT_EQ(l.status, Status::kOk) << StatusText(l.status);
  EXPECT_EQ(l.model.num_states(), 1);
  const std::vector<int8_t> zero(4, static_cast<int8_t>(kZp));
  EXPECT_EQ(Bytes(l.model, false), zero);  // the arena was 0: init wrote the zero point
  std::vector<int8_t> want = zero, first;
  for (int call = 0; call < 3; ++call) {
    want = Logistic(want);
    ASSERT_EQ(l.model.Run(), Status::kOk);
    EXPECT_EQ(Bytes(l.model, true), want) << call;
    EXPECT_EQ(Bytes(l.model, false), want) << call;  // the next call's state
    if (call == 0) first = want;
  }
  EXPECT_NE(first, want);  // the state did change the result
  ASSERT_EQ(l.model.ResetState(), Status::kOk);
  EXPECT_EQ(Bytes(l.model, false), zero);
  ASSERT_EQ(l.model.Run(), Status::kOk);
  EXPECT_EQ(Bytes(l.model, true), first);
}

TEST(State, CApiNamesPairsAndResets) {
  const Builder b = StateProgram();
  const std::vector<uint8_t> bytes = b.Image();
  testing::Aligned image(bytes.size()), arena(64);
  std::memcpy(image.data(), bytes.data(), bytes.size());
  const tf_arena arenas[] = {{arena.data(), 64}};
  const tf_kernel_entry kernels[] = {TF_KERNEL_ENTRY(logistic, s8_logistic__ref)};
  const tf_model_def def = {
      image.data(), static_cast<uint32_t>(bytes.size()), nullptr, 0, arenas, 1, kernels, 1};
  tf_model m;
  EXPECT_EQ(tf_model_reset_state(nullptr), TF_E_NULL_ARGUMENT);
  ASSERT_EQ(tf_model_init(&m, &def), TF_OK);
  EXPECT_EQ(tf_model_num_states(&m), 1);
  int32_t in = -1, out = -1;
  ASSERT_EQ(tf_model_state(&m, 0, &in, &out), TF_OK);
  EXPECT_EQ(in, 0);
  EXPECT_EQ(out, 0);
  EXPECT_EQ(tf_model_state(&m, 1, &in, &out), TF_E_BAD_INDEX);
  ASSERT_EQ(tf_model_run(&m), TF_OK);
  EXPECT_NE(static_cast<int8_t>(arena.data()[0]), kZp);
  ASSERT_EQ(tf_model_reset_state(&m), TF_OK);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(static_cast<int8_t>(arena.data()[i]), kZp);
}

TEST(State, MalformedPairsAreRejected) {
  struct Case {
    const char* what;
    void (*edit)(Builder&);
  };
  const Case cases[] = {
      {"input out of range", [](Builder& b) { b.p.state = {{1, 0}}; }},
      {"output out of range", [](Builder& b) { b.p.state = {{0, 1}}; }},
      {"input twice", [](Builder& b) { b.p.state = {{0, 0}, {0, 0}}; }},
      {"scale differs", [](Builder& b) { b.p.io[1].scale = 0.25f; }},
      {"zero point differs", [](Builder& b) { b.p.io[1].zero_point = 0; }},
      {"dims differ", [](Builder& b) { b.p.io[1].dims = {4, 1}; }},
  };
  for (const Case& c : cases) {
    Builder b = StateProgram();
    c.edit(b);
    Loaded l(b.Image(), testing::RegionSizes(b.p));
    EXPECT_EQ(l.status, Status::kBadState) << c.what << ": " << StatusText(l.status);
  }
  // dtype: an int32 state output (and matching input dims) paired with the int8 input.
  Builder b(64);
  const int32_t s_in = b.Arena(fmt::kInt8, 0, 4);
  const int32_t s_out = b.Arena(fmt::kInt8, 16, 4);
  const int32_t other = b.Arena(fmt::kInt32, 32, 4);
  b.Op(KernelId("s8_logistic__ref"), {s_in, s_out}, emit::EncodeParams(kLogistic));
  b.Input(s_in, {1, 4}, kScale, kZp);
  b.Input(other, {1, 1}, 1.0f, 0);
  b.Output(s_out, {1, 4}, kScale, kZp);
  b.p.state = {{1, 0}};
  Loaded l(b.Image(), testing::RegionSizes(b.p));
  EXPECT_EQ(l.status, Status::kBadState) << StatusText(l.status);
}

// A tensor placed over the state input after the state input's last reader is fine in an
// ordinary program and a live overlap once that input is state (kept until after the run).
TEST(State, NothingMayReuseTheStateInput) {
  for (const bool state : {false, true}) {
    Builder b(64);
    const int32_t s_in = b.Arena(fmt::kInt8, 0, 4);
    const int32_t a = b.Arena(fmt::kInt8, 16, 4);
    const int32_t over = b.Arena(fmt::kInt8, 0, 4);  // s_in's bytes
    const int32_t s_out = b.Arena(fmt::kInt8, 32, 4);
    const uint32_t id = KernelId("s8_logistic__ref");
    b.Op(id, {s_in, a}, emit::EncodeParams(kLogistic));
    b.Op(id, {a, over}, emit::EncodeParams(kLogistic));
    b.Op(id, {over, s_out}, emit::EncodeParams(kLogistic));
    b.Input(s_in, {1, 4}, kScale, kZp);
    b.Output(s_out, {1, 4}, kScale, kZp);
    if (state) b.p.state = {{0, 0}};
    Loaded l(b.Image(), testing::RegionSizes(b.p));
    EXPECT_EQ(l.status, state ? Status::kLiveOverlap : Status::kOk) << StatusText(l.status);
  }
}

}  // namespace
}  // namespace tinyforge::rt
