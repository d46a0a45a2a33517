// Memory planner tests: hand-worked cases (streaming footprints of the zoo's layer shapes,
// order choice at a branch, regions and pins, the "does not fit" diagnostic) and verifier
// checks that must fail.
#include <gtest/gtest.h>

#include <chrono>

#include "plan/board_regions.h"
#include "plan/graph_plan.h"
#include "plan/problem.h"
#include "shadow.h"

namespace tinyforge::plan {
namespace {

rt::StreamGeometry Rows(int out_h, int in_h, int in_row, int out_row, int stride, int pad, int k) {
  return {out_h, in_h, in_row, out_row, stride, pad, k};
}

TEST(ChooseStream, DepthwiseThreeByThreeNeedsTwoRows) {
  // DS-CNN block: 25x5x64 depthwise 3x3, stride 1, pad 1: two output rows of headroom.
  const StreamChoice c = ChooseStream(Rows(25, 25, 320, 320, 1, 1, 3), 16);
  EXPECT_EQ(c.footprint, 8000 + 2 * 320);
}

TEST(ChooseStream, PointwiseByPixelNeedsOnePixel) {
  // 1x1 conv 64 -> 64 over 125 pixels, cut into pixels.
  const StreamChoice c = ChooseStream(Rows(125, 125, 64, 64, 1, 0, 1), 16);
  EXPECT_EQ(c.footprint, 8000 + 64);
  EXPECT_EQ(c.slots, 1);
}

TEST(ChooseStream, ExpandingPointwiseEndsWhereTheInputEnds) {
  // MobileNet block 1: 48x48 pixels, 8 -> 16 channels: the output ends where the input
  // ends, so no input pixel is overwritten before it is read; one pixel of line buffer.
  const StreamChoice c = ChooseStream(Rows(2304, 2304, 8, 16, 1, 0, 1), 16);
  EXPECT_EQ(c.delta, 18432 - 36864);
  EXPECT_EQ(c.footprint, 36864 + 16);
}

TEST(ChooseStream, StridedConvolutionShrinks) {
  // 96x96x3 -> 48x48x8, 3x3 stride 2 pad 1 (MobileNet's first conv).
  const StreamChoice c = ChooseStream(Rows(48, 96, 288, 384, 2, 1, 3), 16);
  EXPECT_LE(c.footprint, 27648 + 2 * 384);
}

TEST(StreamBlocks, BlocksOfRowsWithAPartialLastBlock) {
  // 25 rows of 320 bytes, 3x3 stride 1 pad 1, in blocks of 4 rows: 7 units, the last of 1 row.
  const rt::StreamGeometry b = rt::StreamBlocks(Rows(25, 25, 320, 320, 1, 1, 3), 4);
  EXPECT_EQ(b.units, 7);
  EXPECT_EQ(b.rows_per_unit, 4);
  EXPECT_EQ(b.out_unit_bytes, 4 * 320);
  EXPECT_EQ(b.stride, 4);
  EXPECT_EQ(b.extent, 3 + 3);
  EXPECT_EQ(rt::StreamUnitBytes(b, 5), 4 * 320);
  EXPECT_EQ(rt::StreamUnitBytes(b, 6), 320);
  EXPECT_EQ(rt::StreamOutBytes(b), 8000);
  EXPECT_EQ(rt::StreamLo(b, 1), 3);  // output row 4 reads from input row 3
  EXPECT_EQ(rt::StreamHi(b, 1), 8);  // output row 7 reads up to input row 8
  // k >= rows: one unit, the whole tensor.
  const rt::StreamGeometry w = rt::StreamBlocks(Rows(25, 25, 320, 320, 1, 1, 3), 64);
  EXPECT_EQ(w.units, 1);
  EXPECT_EQ(rt::StreamOutBytes(w), 8000);
}

TEST(PlanGraph, WideningKeepsTheSmallestPlanAtThePeak) {
  // DS-CNN's depthwise alone: streaming it by rows is the peak; wider blocks would cost
  // more line buffer, so it stays at one row per call.
  GraphSpec g;
  g.tensors = {{"x", 8000, true, false, ""}, {"y", 8000, false, true, ""}};
  g.ops = {{"dw", {0}, {1}, 0, InPlace::kStream, 0, {Rows(25, 25, 320, 320, 1, 1, 3)}, 1}};
  auto mp = PlanGraph(g, {{"ram", 1 << 20, 0}});
  ASSERT_TRUE(mp.ok()) << mp.error().message();
  EXPECT_EQ(mp->total_bytes, 8000 + 2 * 320);
  EXPECT_EQ(mp->streams[0].geometry.rows_per_unit, 1);
  EXPECT_EQ(testing::Shadow(g, *mp).Run(), "");
}

TEST(PlanGraph, OpsBelowThePeakRunWholeTensor) {
  // dw (8000 -> 8000) then an expanding op (8000 -> 24000) that is the peak: dw runs
  // unstreamed (whole-tensor calls) at no cost in RAM.
  GraphSpec g;
  g.tensors = {{"x", 8000, true, false, ""},
               {"a", 8000, false, false, ""},
               {"b", 24000, false, true, ""}};
  g.ops = {{"dw", {0}, {1}, 0, InPlace::kStream, 0, {Rows(25, 25, 320, 320, 1, 1, 3)}, 1},
           {"pw", {1}, {2}, 0, InPlace::kNone, 0, {}, 1}};
  auto mp = PlanGraph(g, {{"ram", 1 << 20, 0}});
  ASSERT_TRUE(mp.ok()) << mp.error().message();
  EXPECT_EQ(mp->total_bytes, 32000);
  EXPECT_EQ(mp->streams[0].option, -1);
  EXPECT_EQ(testing::Shadow(g, *mp).Run(), "");
}

// x -> a -> b (chain) with a skip: x also feeds the add at the end.
GraphSpec ResidualBlock() {
  GraphSpec g;
  g.tensors = {{"x", 16384, true, false, ""},
               {"a", 16384, false, false, ""},
               {"b", 16384, false, false, ""},
               {"y", 16384, false, true, ""}};
  OpSpec c1{"conv1", {0}, {1}, 0, InPlace::kStream, 0, {Rows(32, 32, 512, 512, 1, 1, 3)}, 1};
  OpSpec c2{"conv2", {1}, {2}, 0, InPlace::kStream, 0, {Rows(32, 32, 512, 512, 1, 1, 3)}, 1};
  OpSpec add{"add", {2, 0}, {3}, 0, InPlace::kAlias, 0, {}, 1};
  g.ops = {c1, c2, add};
  return g;
}

// Planning grows near-linearly with the graph (issue 19): a chain of 100,000 ops (every
// other one also reads the tensor before its input and may write in place; every 1,000th
// reads one from three steps back) plans (order, lifetimes, placement, verification) in
// well under 30 s; O(ops^2) placement or verification took far longer.
TEST(PlanGraph, HundredThousandOpChainPlansQuickly) {
  constexpr int kOps = 100000;
  GraphSpec g;
  g.tensors.push_back({"x", 64, true, false, ""});
  for (int k = 0; k < kOps; ++k) {
    const int in = static_cast<int>(g.tensors.size()) - 1;
    g.tensors.push_back({"t" + std::to_string(k), 64 + 16 * (k % 3), false, k == kOps - 1, ""});
    OpSpec op{"op" + std::to_string(k), {in}, {in + 1}, 16 * (k % 2), InPlace::kNone, 0, {}, 1};
    if (k % 2 == 1 && k >= 2 && g.tensors[static_cast<size_t>(in)].bytes ==
                                    g.tensors[static_cast<size_t>(in) + 1].bytes) {
      op.inputs.push_back(in - 1);
      op.in_place = InPlace::kAlias;
    }
    if (k % 1000 == 999) op.inputs.push_back(in - 2);  // joins a branch
    g.ops.push_back(op);
  }
  const auto start = std::chrono::steady_clock::now();
  auto mp = PlanGraph(g, {{"ram", int64_t{1} << 30, 0}}, {});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(mp.ok()) << mp.error().message();
  EXPECT_TRUE(Verify(mp->problem, mp->plan).ok());
  EXPECT_EQ(mp->order.size(), static_cast<size_t>(kOps));
  EXPECT_LT(seconds, 30.0);
}

TEST(PlanGraph, UnrolledRecurrenceSlicesNextToTheirStep) {
  // An unrolled recurrence over kSteps steps, as exported: one projection of the whole input
  // (proj), then every step's slice of it (cheap, always ready: listed first), then the
  // steps, each joining its slice with the previous state. Over max_search_ops the search
  // descends once and ran every slice first; the demand order runs each slice before its
  // step: proj + one slice + the state, not proj + all slices.
  constexpr int kSteps = 600;
  constexpr int64_t kSlice = 32, kState = 96, kProj = kSteps * kSlice;  // a step costs more
  GraphSpec g;
  g.tensors.push_back({"x", 1200, true, false, ""});
  g.tensors.push_back({"proj", kProj, false, false, ""});
  g.ops.push_back({"proj", {0}, {1}, 0, InPlace::kNone, 0, {}, 1});
  for (int t = 0; t < kSteps; ++t) {
    g.tensors.push_back({"s" + std::to_string(t), kSlice, false, false, ""});
    g.ops.push_back({"slice" + std::to_string(t), {1}, {static_cast<int>(g.tensors.size()) - 1},
                     0, InPlace::kNone, 0, {}, 1});
  }
  int state = -1;
  for (int t = 0; t < kSteps; ++t) {
    g.tensors.push_back({"h" + std::to_string(t), kState, false, t == kSteps - 1, ""});
    const int h = static_cast<int>(g.tensors.size()) - 1;
    std::vector<int> in = {2 + t};
    if (state >= 0) in.push_back(state);
    g.ops.push_back({"step" + std::to_string(t), in, {h}, 0, InPlace::kNone, 0, {}, 1});
    state = h;
  }
  ASSERT_GT(static_cast<int64_t>(g.ops.size()), PlanOptions{}.max_search_ops);
  auto mp = PlanGraph(g, {{"ram", int64_t{1} << 24, 0}});
  ASSERT_TRUE(mp.ok()) << mp.error().message();
  EXPECT_TRUE(Verify(mp->problem, mp->plan).ok());
  EXPECT_LE(mp->total_bytes, 1200 + kProj + 4 * kSlice + 4 * kState);  // was 2 * kProj
  EXPECT_EQ(testing::Shadow(g, *mp).Run(), "");
}

TEST(PlanGraph, ResidualBlockUsesInPlaceConvAndAdd) {
  const GraphSpec g = ResidualBlock();
  auto mp = PlanGraph(g, {{"ram", 1 << 20, 0}});
  ASSERT_TRUE(mp.ok()) << mp.error().message();
  // x lives throughout; conv2 streams a -> b with 2 rows; add aliases b.
  EXPECT_EQ(mp->total_bytes, 2 * 16384 + 2 * 512);
  EXPECT_GE(mp->streams[1].option, 0);
  EXPECT_TRUE(mp->aliased[2]);
  EXPECT_EQ(testing::Shadow(g, *mp).Run(), "");
}

TEST(PlanGraph, ChoosesTheBranchOrderWithTheLowerPeak) {
  // x feeds a long branch (x -> big -> mid) and a cheap one (x -> s); both join. Running
  // the long branch first keeps x live until the end of it (peak x + big + mid); running
  // the cheap branch first lets x die at the long branch's first op (peak s + big + mid).
  GraphSpec g;
  g.tensors = {{"x", 1000, true, false, ""},
               {"big", 5000, false, false, ""},
               {"mid", 3000, false, false, ""},
               {"s", 100, false, false, ""},
               {"y", 100, false, true, ""}};
  g.ops = {{"b1", {0}, {1}, 0, InPlace::kNone, 0, {}, 1},
           {"b2", {1}, {2}, 0, InPlace::kNone, 0, {}, 1},
           {"c", {0}, {3}, 0, InPlace::kNone, 0, {}, 1},
           {"join", {2, 3}, {4}, 0, InPlace::kNone, 0, {}, 1}};
  PlanOptions fixed;
  fixed.reorder = false;
  const int64_t given = LiveBytesPeak(g, {0, 1, 2, 3}, fixed);
  const std::vector<int> order = ChooseOrder(g, {});
  EXPECT_EQ(order, (std::vector<int>{2, 0, 1, 3}));
  EXPECT_LT(LiveBytesPeak(g, order, {}), given);
  auto mp = PlanGraph(g, {{"ram", 1 << 20, 0}});
  ASSERT_TRUE(mp.ok()) << mp.error().message();
  EXPECT_EQ(mp->order, order);
}

TEST(PlanGraph, FillsTheFastRegionFirstThenSpills) {
  GraphSpec g;
  g.tensors = {
      {"x", 1024, true, false, ""}, {"a", 4096, false, false, ""}, {"y", 64, false, true, ""}};
  g.ops = {{"op1", {0}, {1}, 0, InPlace::kNone, 0, {}, 100000},
           {"op2", {1}, {2}, 0, InPlace::kNone, 0, {}, 100}};
  auto mp = PlanGraph(g, {{"slow", 1 << 20, 1}, {"fast", 2048, 0}});
  ASSERT_TRUE(mp.ok()) << mp.error().message();
  EXPECT_EQ(mp->tensors[1].region, 0);  // 4 KiB does not fit the 2 KiB fast region
  EXPECT_EQ(mp->tensors[0].region, 1);
  EXPECT_GT(mp->regions[1].used, 0);
}

TEST(PlanGraph, HonoursPins) {
  GraphSpec g = ResidualBlock();
  g.tensors[0].pin = "slow";
  auto mp = PlanGraph(g, {{"fast", 1 << 20, 0}, {"slow", 1 << 20, 1}});
  ASSERT_TRUE(mp.ok()) << mp.error().message();
  EXPECT_EQ(mp->tensors[0].region, 1);
  EXPECT_EQ(mp->tensors[1].region, 0);
}

TEST(PlanGraph, DoesNotFitNamesRegionBytesAndOp) {
  const GraphSpec g = ResidualBlock();
  auto mp = PlanGraph(g, {{"dtcm", 30000, 0}});
  ASSERT_FALSE(mp.ok());
  const std::string m = mp.error().message();
  EXPECT_NE(m.find("does not fit: region 'dtcm' needs 33,792 bytes but has 30,000 "
                   "(3,792 bytes missing)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("the peak is at op 'conv2' (#1)"), std::string::npos) << m;
}

TEST(PlanGraph, PinToUnknownRegionIsAnError) {
  GraphSpec g = ResidualBlock();
  g.tensors[1].pin = "nowhere";
  auto mp = PlanGraph(g, {{"ram", 1 << 20, 0}});
  ASSERT_FALSE(mp.ok());
  EXPECT_NE(mp.error().message().find("'nowhere'"), std::string::npos);
}

// ---- The verifier must reject what is unsafe -------------------------------------------

Problem TwoBuffers() {
  Problem p;
  p.regions = {{"ram", 1000, 0}};
  p.buffers = {{"a", 100, 16, 0, 1, "", 0}, {"b", 100, 16, 1, 2, "", 0}};
  p.step_names = {"s0", "s1", "s2"};
  return p;
}

TEST(Verify, RejectsOverlapWithoutPermission) {
  const Problem p = TwoBuffers();
  Plan plan{{{0, 0}, {0, 48}}, {}};
  const Status s = Verify(p, plan);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("share bytes"), std::string::npos);
  plan.placements[1].offset = 112;
  EXPECT_TRUE(Verify(p, plan).ok());
}

TEST(Verify, RejectsOutOfRegionAndMisaligned) {
  const Problem p = TwoBuffers();
  EXPECT_FALSE(Verify(p, {{{0, 0}, {0, 904}}, {}}).ok());  // past the end
  EXPECT_FALSE(Verify(p, {{{0, 0}, {0, 120}}, {}}).ok());  // not 16-aligned
  EXPECT_FALSE(Verify(p, {{{0, 0}, {1, 200}}, {}}).ok());  // no such region
}

TEST(Verify, AliasMustBeExact) {
  Problem p = TwoBuffers();
  p.overlaps = {{0, 1, 1, OverlapKind::kAlias, 0, {}, -1}};
  EXPECT_TRUE(Verify(p, {{{0, 0}, {0, 0}}, {}}).ok());
  EXPECT_FALSE(Verify(p, {{{0, 16}, {0, 0}}, {}}).ok());
}

TEST(Verify, StreamNeedsEnoughHeadroom) {
  // 10 rows of 10 bytes, 3-row windows, pad 1: output at the input's offset needs 2 rows of
  // line buffer; with 1 row it must be rejected.
  Problem p;
  p.regions = {{"ram", 1000, 0}};
  p.buffers = {
      {"in", 100, 16, 0, 1, "", 0}, {"out", 100, 16, 1, 2, "", 0}, {"line", 10, 16, 1, 1, "", 0}};
  p.overlaps = {{0, 1, 1, OverlapKind::kStream, 0, {10, 10, 10, 10, 1, 1, 3}, 2}};
  Plan plan{{{0, 0}, {0, 0}, {0, 512}}, {}};
  const Status one_row = Verify(p, plan);
  ASSERT_FALSE(one_row.ok());
  EXPECT_NE(one_row.error().message().find("too small"), std::string::npos);
  p.buffers[2].size = 20;
  EXPECT_TRUE(Verify(p, plan).ok());
  // Output starting *after* the input's start overwrites rows still to be read.
  plan.placements[1].offset = 16;
  EXPECT_FALSE(Verify(p, plan).ok());
}

TEST(Verify, UsageMustCoverTheBuffers) {
  const Problem p = TwoBuffers();
  Plan plan{{{0, 0}, {0, 112}}, {{"ram", 100, 1000, 0, 0}}};
  EXPECT_FALSE(Verify(p, plan).ok());
  plan.regions[0].used = 212;
  EXPECT_TRUE(Verify(p, plan).ok());
}

// ---- Boards ------------------------------------------------------------------------------

TEST(Board, TargetsByBoardCpuAndPath) {
  auto m55 = target::LoadBoard("cortex-m55");
  ASSERT_TRUE(m55.ok()) << m55.error().message();
  EXPECT_EQ(m55->name, "an547");
  EXPECT_EQ(m55->isa_class, "mve");
  EXPECT_EQ(m55->weights_region, "qspi");
  auto an385 = target::LoadBoard("an385");
  ASSERT_TRUE(an385.ok());
  EXPECT_EQ(an385->cpu, "cortex-m3");
  auto missing = target::LoadBoard("cortex-m99");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("an547 (cortex-m55)"), std::string::npos);
}

TEST(Board, RamRegionsNetOfTheFirmwareReserve) {
  auto b = target::LoadBoard("an547");
  ASSERT_TRUE(b.ok());
  const std::vector<Region> r = RamRegions(*b);
  std::vector<std::string> names;
  for (const Region& x : r) names.push_back(x.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fpga_sram", "dtcm", "sram", "ddr"}));
  // DTCM holds stack (16 KiB), handler stacks + guard, .data/.bss estimate (no heap).
  EXPECT_EQ(r[1].capacity, 512 * 1024 - 16384 - kHandlerStacks - 4096);
  EXPECT_EQ(r[1].speed_rank, 0);
  EXPECT_EQ(r[2].capacity, 4 * 1024 * 1024);
  FirmwareReserve small;
  small.stack_size = 2048;
  small.data_bss_bytes = 0;
  EXPECT_EQ(RamRegions(*b, small)[1].capacity, 512 * 1024 - 2048 - kHandlerStacks);
}

}  // namespace
}  // namespace tinyforge::plan
