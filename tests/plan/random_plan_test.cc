// The planner on thousands of seeded random graphs: every plan must pass the verifier and
// the shadow-memory execution (an independent oracle); corrupting a plan must make the
// verifier fail whenever the shadow execution breaks; the order search must find the
// optimum of LiveBytesPeak on small graphs (checked by brute force).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "plan/graph_plan.h"
#include "random_graph.h"
#include "shadow.h"

namespace tinyforge::plan {
namespace {

constexpr int kGraphs = 3000;

TEST(RandomGraphs, PlansVerifyAndExecuteCorrectly) {
  int planned = 0, streamed = 0, blocks = 0, aliased = 0, multi_region = 0;
  for (int seed = 0; seed < kGraphs; ++seed) {
    std::mt19937 rng(static_cast<uint32_t>(seed));
    const std::vector<std::string> names = {"fast", "mid", "slow"};
    const GraphSpec g = testing::RandomGraph(rng, 14, seed % 3 == 0, names);
    std::vector<Region> regions = {{"fast", 64 + 16 * (seed % 40), 0},
                                   {"mid", 512 + 32 * (seed % 13), 1},
                                   {"slow", 1 << 20, 2}};
    PlanOptions o;
    o.reorder = seed % 2 == 0;
    o.in_place = seed % 5 != 0;
    if (seed % 4 == 0) o.max_search_ops = 0;  // the large-graph order: first descent only
    o.widen_streams = seed % 3 != 1;  // blocks of rows per call (docs/decisions.md 54)
    auto mp = PlanGraph(g, regions, o);
    if (!mp.ok()) {
      // Only a region that tensors are pinned to may overflow (the slow one never does).
      bool pinned_fast = false;
      for (const TensorSpec& t : g.tensors) pinned_fast |= t.pin == "fast" || t.pin == "mid";
      ASSERT_TRUE(pinned_fast) << "seed " << seed << ": " << mp.error().message();
      EXPECT_NE(mp.error().message().find("does not fit: region '"), std::string::npos)
          << "seed " << seed << ": " << mp.error().message();
      continue;
    }
    ++planned;
    ASSERT_TRUE(Verify(mp->problem, mp->plan).ok()) << "seed " << seed;
    const std::string shadow = testing::Shadow(g, *mp).Run();
    ASSERT_EQ(shadow, "") << "seed " << seed;
    for (const StreamChoice& s : mp->streams) {
      streamed += s.option >= 0;
      blocks += s.option >= 0 && s.geometry.rows_per_unit > 1;
    }
    for (bool a : mp->aliased) aliased += a;
    int used = 0;
    for (const RegionUsage& u : mp->regions) used += u.used > 0;
    multi_region += used > 1;
    // The arena can never be smaller than what is live at once.
    EXPECT_GE(mp->total_bytes, 0);
  }
  EXPECT_GT(planned, kGraphs * 9 / 10);
  // The generator exercises what it should.
  EXPECT_GT(streamed, kGraphs / 8);
  EXPECT_GT(blocks, kGraphs / 100) << streamed << " streamed";
  EXPECT_GT(aliased, kGraphs / 10);
  EXPECT_GT(multi_region, kGraphs / 10);
}

TEST(RandomGraphs, VerifierCatchesCorruptedPlans) {
  int rejected = 0, unsafe = 0;
  for (int seed = 0; seed < kGraphs; ++seed) {
    std::mt19937 rng(static_cast<uint32_t>(seed) + 100000u);
    const GraphSpec g = testing::RandomGraph(rng, 10);
    auto mp = PlanGraph(g, {{"ram", 1 << 20, 0}});
    ASSERT_TRUE(mp.ok()) << mp.error().message();
    // Move one tensor to a random aligned offset inside the arena.
    MemoryPlan bad = *mp;
    const size_t t = std::uniform_int_distribution<size_t>(0, g.tensors.size() - 1)(rng);
    const int64_t top = std::max<int64_t>(bad.regions[0].used - g.tensors[t].bytes, 0);
    const int64_t at = std::uniform_int_distribution<int64_t>(0, top / 16)(rng) * 16;
    bad.tensors[t].offset = at;
    bad.plan.placements[t].offset = at;
    const bool shadow_ok = testing::Shadow(g, bad).Run().empty();
    const bool verified = Verify(bad.problem, bad.plan).ok();
    // Soundness: whatever the verifier accepts executes correctly.
    if (verified) {
      EXPECT_TRUE(shadow_ok) << "seed " << seed << ": verifier accepted an unsafe plan";
    }
    rejected += !verified;
    unsafe += !shadow_ok;
  }
  EXPECT_GT(unsafe, kGraphs / 10);
  EXPECT_GE(rejected, unsafe);
}

TEST(RandomGraphs, OrderSearchFindsTheOptimum) {
  for (int seed = 0; seed < 400; ++seed) {
    std::mt19937 rng(static_cast<uint32_t>(seed) + 7u);
    const GraphSpec g = testing::RandomGraph(rng, 7);
    const PlanOptions o;
    // Brute force over all topological orders.
    std::vector<int> order(g.ops.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
    auto topological = [&](const std::vector<int>& ord) {
      std::vector<int> pos(ord.size());
      for (size_t i = 0; i < ord.size(); ++i)
        pos[static_cast<size_t>(ord[i])] = static_cast<int>(i);
      for (size_t k = 0; k < g.ops.size(); ++k) {
        for (int t : g.ops[k].inputs) {
          for (size_t j = 0; j < g.ops.size(); ++j) {
            for (int u : g.ops[j].outputs) {
              if (u == t && pos[j] > pos[k]) return false;
            }
          }
        }
      }
      return true;
    };
    int64_t best = -1;
    do {
      if (!topological(order)) continue;
      const int64_t v = LiveBytesPeak(g, order, o);
      if (best < 0 || v < best) best = v;
    } while (std::next_permutation(order.begin(), order.end()));
    const std::vector<int> chosen = ChooseOrder(g, o);
    ASSERT_TRUE(topological(chosen)) << "seed " << seed;
    EXPECT_EQ(LiveBytesPeak(g, chosen, o), best) << "seed " << seed;
  }
}

}  // namespace
}  // namespace tinyforge::plan
