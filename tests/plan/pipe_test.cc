// Pipes (runtime/include/tinyforge/pipe.h, docs/decisions.md 84): the schedule the runtime
// runs and the planner sizes, checked by executing random chains of row-windowed ops on
// shadow memory (the output overlapping the input where ChoosePipe puts it) against the
// same ops computed whole, tensor by tensor.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "plan/graph_plan.h"
#include "tinyforge/pipe.h"

namespace tinyforge::plan {
namespace {

struct Stage {
  int32_t in_rows, out_rows, in_row_bytes, out_row_bytes, stride, pad, k, block;
};

// Output row y of stage s: byte j = a mix of the rows its window covers (padding rows 0).
uint8_t Value(const Stage& st, int s, const std::vector<const uint8_t*>& rows, int j) {
  uint32_t h = 2166136261u ^ static_cast<uint32_t>(s * 131 + j);
  for (const uint8_t* r : rows) {
    for (int b = 0; b < st.in_row_bytes; ++b) h = (h ^ (r ? r[b] : 0u)) * 16777619u;
  }
  return static_cast<uint8_t>(h >> 13);
}

// Rows y0 .. y1 - 1 of stage st's output from its input rows, row iy at in(iy).
template <class In>
void Compute(const Stage& st, int s, int y0, int y1, In&& in, uint8_t* out) {
  for (int y = y0; y < y1; ++y) {
    std::vector<const uint8_t*> rows;
    for (int t = 0; t < st.k; ++t) {
      const int iy = y * st.stride - st.pad + t;
      rows.push_back(iy >= 0 && iy < st.in_rows ? in(iy) : nullptr);
    }
    for (int j = 0; j < st.out_row_bytes; ++j) {
      out[(y - y0) * st.out_row_bytes + j] = Value(st, s, rows, j);
    }
  }
}

std::vector<Stage> RandomChain(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<Stage> chain;
  int rows = pick(6, 40), row_bytes = pick(1, 12);
  const int n = pick(2, rt::kMaxPipeStages);
  for (int s = 0; s < n; ++s) {
    Stage st{};
    st.in_rows = rows;
    st.in_row_bytes = row_bytes;
    st.k = pick(1, 3);
    st.stride = pick(1, 2);
    st.pad = pick(0, st.k - 1);
    st.out_rows = std::max(1, (rows + 2 * st.pad - st.k) / st.stride + 1);
    st.out_row_bytes = pick(1, 12);
    st.block = pick(1, 4);
    chain.push_back(st);
    rows = st.out_rows;
    row_bytes = st.out_row_bytes;
  }
  return chain;
}

// The chain's output computed whole, stage by stage, from `cur`.
std::vector<uint8_t> Whole(const std::vector<Stage>& chain, std::vector<uint8_t> cur) {
  for (size_t s = 0; s < chain.size(); ++s) {
    const Stage& st = chain[s];
    std::vector<uint8_t> next(static_cast<size_t>(st.out_rows * st.out_row_bytes));
    Compute(st, static_cast<int>(s), 0, st.out_rows,
            [&](int iy) { return cur.data() + iy * st.in_row_bytes; }, next.data());
    cur = std::move(next);
  }
  return cur;
}

// The last stage of a residual pipe: unit u from its window's rows `w` and the input `mem`.
using Tail = std::function<void(const std::vector<uint8_t>& mem, int32_t u, const uint8_t* w,
                                uint8_t* out)>;

// Runs pipe p, `chain`'s stages (and `tail`, if set, as the last) on shadow memory: the input
// at in_at, the output (out_bytes) at out_at, the windows and the line buffer apart. The
// output, or nothing if the schedule stopped.
std::vector<uint8_t> ShadowRun(const rt::Pipe& p, const std::vector<Stage>& chain,
                               const std::vector<uint8_t>& input, int64_t in_at, int64_t out_at,
                               int64_t out_bytes, int32_t slots, const Tail& tail) {
  const int64_t in_bytes = static_cast<int64_t>(input.size());
  std::vector<uint8_t> mem(static_cast<size_t>(std::max(in_at + in_bytes, out_at + out_bytes)));
  std::copy(input.begin(), input.end(), mem.begin() + in_at);
  std::vector<std::vector<uint8_t>> windows(static_cast<size_t>(p.stages));
  for (int32_t s = 0; s + 1 < p.stages; ++s) {
    windows[static_cast<size_t>(s)].assign(
        static_cast<size_t>(p.window_rows[s] * rt::PipeRowBytes(p.g[s])), 0);
  }
  const int32_t n = p.stages;
  const int64_t unit = p.g[n - 1].out_unit_bytes;
  std::vector<uint8_t> ring(static_cast<size_t>(slots * unit));
  const bool ok = rt::RunPipe(
      p, in_at, out_at, slots,
      [&](int32_t s, int32_t u, int32_t in_row, int32_t out_row) {
        uint8_t* out = s + 1 < n ? windows[static_cast<size_t>(s)].data() +
                                       out_row * rt::PipeRowBytes(p.g[s])
                                 : ring.data() + out_row * unit;
        if (s + 1 == n && tail) {
          tail(mem, u, windows[static_cast<size_t>(s - 1)].data() + in_row * p.g[s].in_unit_bytes,
               out);
          return;
        }
        const Stage& st = chain[static_cast<size_t>(s)];
        const int32_t lo = static_cast<int32_t>(rt::StreamLo(p.g[s], u));
        const uint8_t* base =
            s == 0 ? mem.data() + in_at + int64_t{in_row} * st.in_row_bytes
                   : windows[static_cast<size_t>(s - 1)].data() + in_row * st.in_row_bytes;
        const int y0 = u * st.block, y1 = std::min(y0 + st.block, st.out_rows);
        Compute(st, s, y0, y1, [&](int iy) { return base + (iy - lo) * st.in_row_bytes; }, out);
      },
      [&](int32_t s, int32_t from, int32_t rows) {
        const int64_t rb = rt::PipeRowBytes(p.g[s]);
        std::vector<uint8_t>& w = windows[static_cast<size_t>(s)];
        std::copy(w.begin() + from * rb, w.begin() + (from + rows) * rb, w.begin());
      },
      [&](int32_t v, int32_t slot) {
        const int64_t bytes = rt::StreamUnitBytes(p.g[n - 1], v);
        std::copy(ring.begin() + slot * unit, ring.begin() + slot * unit + bytes,
                  mem.begin() + out_at + v * unit);
      });
  if (!ok) return {};
  return {mem.begin() + out_at, mem.begin() + out_at + out_bytes};
}

rt::Pipe PipeOf(const std::vector<Stage>& chain) {
  rt::Pipe p;
  p.stages = static_cast<int32_t>(chain.size());
  for (size_t s = 0; s < chain.size(); ++s) {
    const Stage& st = chain[s];
    p.g[s] = rt::StreamBlocks(rt::WindowRows(st.in_rows, st.in_row_bytes, st.out_rows,
                                             st.out_row_bytes, st.stride, st.pad, st.k, 1),
                              st.block);
  }
  return p;
}

TEST(Pipe, ShadowExecutionEqualsWholeTensors) {
  std::mt19937 rng(84);
  for (int trial = 0; trial < 400; ++trial) {
    const std::vector<Stage> chain = RandomChain(rng);
    rt::Pipe p = PipeOf(chain);
    ASSERT_TRUE(rt::MinPipeWindows(&p)) << trial;
    ASSERT_TRUE(rt::PipeValid(p)) << trial;
    const StreamChoice c = ChoosePipe(p, 1);
    ASSERT_GE(c.option, 0) << trial;
    // Whole tensors, stage by stage.
    const Stage& first = chain.front();
    const Stage& last = chain.back();
    std::vector<uint8_t> input(static_cast<size_t>(first.in_rows * first.in_row_bytes));
    for (uint8_t& b : input) b = static_cast<uint8_t>(rng());
    const std::vector<uint8_t> cur = Whole(chain, input);
    // The pipe on shadow memory: output at in + delta.
    const int64_t out_bytes = int64_t{last.out_rows} * last.out_row_bytes;
    const int64_t in_at = c.delta < 0 ? -c.delta : 0, out_at = in_at + c.delta;
    const std::vector<uint8_t> got = ShadowRun(p, chain, input, in_at, out_at, out_bytes, c.slots, {});
    ASSERT_FALSE(got.empty()) << trial;
    ASSERT_EQ(got, cur) << "trial " << trial << ": " << chain.size() << " stages, delta "
                        << c.delta << ", " << c.slots << " slots";
  }
}

// A residual pipe (docs/decisions.md 99): row-preserving stages (stride 1, odd k, "same"
// padding), the last writing the input's row width, then an ADD of that and the pipe's input
// read again, row for row. On shadow memory with the output where ChoosePipe puts it (over
// the input) and at offsets after the input's start, equal to whole tensors; without the
// residual rule in the schedule the flushes overwrite input rows the ADD has not read yet.
TEST(Pipe, ResidualShadowExecutionEqualsWholeTensors) {
  std::mt19937 rng(99);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int overlapped = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int rows = pick(4, 40), row_bytes = pick(1, 12);
    std::vector<Stage> chain;
    const int convs = pick(1, rt::kMaxPipeStages - 1);
    int in_bytes_row = row_bytes;
    for (int s = 0; s < convs; ++s) {
      Stage st{};
      st.in_rows = st.out_rows = rows;
      st.in_row_bytes = in_bytes_row;
      st.k = pick(0, 1) * 2 + 1;
      st.stride = 1;
      st.pad = (st.k - 1) / 2;
      st.out_row_bytes = s + 1 == convs ? row_bytes : pick(1, 12);
      st.block = pick(1, 4);
      chain.push_back(st);
      in_bytes_row = st.out_row_bytes;
    }
    const int add_block = pick(1, 4);
    rt::Pipe p = PipeOf(chain);
    p.stages = convs + 1;
    p.g[convs] = rt::StreamBlocks(rt::ElementwiseRows(rows, row_bytes), add_block);
    p.residual = 1;
    ASSERT_TRUE(rt::MinPipeWindows(&p)) << trial;
    ASSERT_TRUE(rt::PipeValid(p)) << trial;
    const StreamChoice c = ChoosePipe(p, 1);
    ASSERT_GE(c.option, 0) << trial;
    std::vector<uint8_t> input(static_cast<size_t>(rows * row_bytes));
    for (uint8_t& b : input) b = static_cast<uint8_t>(rng());
    auto add = [](uint8_t a, uint8_t b) { return static_cast<uint8_t>(a * 5 + (b ^ 0x5a)); };
    std::vector<uint8_t> cur = Whole(chain, input);
    for (size_t i = 0; i < cur.size(); ++i) cur[i] = add(cur[i], input[i]);
    const int64_t bytes = static_cast<int64_t>(input.size());
    // Where ChoosePipe puts the output, and (the runtime accepts any offset its schedule
    // completes with) after the input's start, over rows the ADD has still to read.
    const int64_t unit = p.g[convs].out_unit_bytes;
    for (const int64_t delta : {c.delta, int64_t{row_bytes}, unit, 2 * unit + 1}) {
      const int32_t slots = delta == c.delta ? c.slots : rt::MinPipeSlots(p, 0, delta);
      if (slots < 1) continue;
      const int64_t in_at = delta < 0 ? -delta : 0, out_at = in_at + delta;
      if (delta > 0) ++overlapped;
      const Tail tail = [&](const std::vector<uint8_t>& mem, int32_t u, const uint8_t* w,
                            uint8_t* out) {  // the ADD: its window's rows and the input's own
        const int32_t y0 = u * add_block, y1 = std::min(y0 + add_block, rows);
        for (int32_t i = 0; i < (y1 - y0) * row_bytes; ++i) {
          out[i] = add(w[i], mem[static_cast<size_t>(in_at + y0 * row_bytes + i)]);
        }
      };
      const std::vector<uint8_t> got = ShadowRun(p, chain, input, in_at, out_at, bytes, slots, tail);
      ASSERT_FALSE(got.empty()) << trial;
      ASSERT_EQ(got, cur) << "trial " << trial << ": " << p.stages << " stages, delta " << delta
                          << ", " << slots << " slots";
    }
  }
  EXPECT_GT(overlapped, 300);  // outputs over input rows still to be read
}

TEST(Pipe, WindowsAreTheFewestRowsThatWork) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    rt::Pipe p = PipeOf(RandomChain(rng));
    ASSERT_TRUE(rt::MinPipeWindows(&p));
    const int32_t units = p.g[p.stages - 1].units;
    // Output far from the input: the windows alone decide.
    const int64_t far = int64_t{1} << 30;
    EXPECT_TRUE(rt::PipeFits(p, 0, far, units)) << trial;
    for (int32_t s = 0; s + 1 < p.stages; ++s) {
      rt::Pipe q = p;
      --q.window_rows[s];
      if (q.window_rows[s] >= 1) {
        EXPECT_FALSE(rt::PipeFits(q, 0, far, units)) << trial << " " << s;
      }
    }
  }
}

TEST(Pipe, PlannedAsOneOpBelowItsTensors) {
  // A 1x1 conv widening 48x48x8 to x16, then a stride-2 3x3 depthwise (vww's op02, op03).
  rt::Pipe p;
  p.stages = 2;
  p.g[0] = rt::StreamBlocks(rt::WindowRows(48, 384, 48, 768, 1, 0, 1, 1), 2);
  p.g[1] = rt::StreamBlocks(rt::WindowRows(48, 768, 24, 384, 2, 0, 3, 1), 3);
  ASSERT_TRUE(rt::MinPipeWindows(&p));
  GraphSpec g;
  g.tensors = {{"x", 18432, true, false, ""}, {"y", 9216, false, true, ""}};
  OpSpec op;
  op.name = "pipe";
  op.inputs = {0};
  op.outputs = {1};
  op.in_place = InPlace::kStream;
  op.pipe = p;
  op.scratch_bytes = p.window_rows[0] * 768;
  g.ops = {op};
  auto mp = PlanGraph(g, {{"sram", 1 << 20, 0}});
  ASSERT_TRUE(mp.ok()) << mp.error().message();
  // The output runs over the input as it is consumed: less than input + output + window.
  EXPECT_LT(mp->total_bytes, 18432 + 9216 + op.scratch_bytes);
  EXPECT_GE(mp->streams[0].option, 0);
  EXPECT_TRUE(mp->streams[0].in_place);
  EXPECT_TRUE(Verify(mp->problem, mp->plan).ok());
  // The verifier runs the schedule: a window a row short is refused.
  Problem shorter = mp->problem;
  ASSERT_EQ(shorter.overlaps.size(), 1u);
  --shorter.overlaps[0].pipe.window_rows[0];
  EXPECT_FALSE(Verify(shorter, mp->plan).ok());
}

}  // namespace
}  // namespace tinyforge::plan
