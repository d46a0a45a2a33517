// Memory planning of an op graph: execution order, lifetimes, in-place decisions, scratch
// and line buffers, placement (problem.h), verification. The emitter describes a lowered
// graph as a GraphSpec; tests build random ones. Host side, C++20.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/problem.h"
#include "support/expected.h"
#include "tinyforge/stream.h"

namespace tinyforge::plan {

// An activation tensor (constants live in flash and are not planned here).
struct TensorSpec {
  std::string name;
  int64_t bytes = 0;
  bool graph_input = false;   // live from the first op (the caller writes it before a run)
  bool graph_output = false;  // live until after the last op
  std::string pin;            // region, or "" (planner's choice)
};

enum class InPlace : uint8_t {
  kNone,
  // The kernel may write its output over inputs[in_place_input] exactly (elementwise ops
  // that read element i before writing it; same size).
  kAlias,
  // The op can run row by row through a line buffer (tinyforge/stream.h); each entry of
  // stream_options is one way to cut it into units (rows; pixels for a 1x1 conv).
  kStream,
};

struct OpSpec {
  std::string name;
  std::vector<int> inputs;    // activation tensors read (indices into GraphSpec::tensors)
  std::vector<int> outputs;   // activation tensors written
  int64_t scratch_bytes = 0;  // kernel scratch, live during this op only
  InPlace in_place = InPlace::kNone;
  int in_place_input = 0;  // which input the output may overlap
  std::vector<rt::StreamGeometry> stream_options;
  int64_t macs = 0;  // work, for the heat of its tensors
  // Per option: the fewest output rows (units of that option) per kernel call, so that a
  // fast kernel's per-call setup stays small against its work (docs/decisions.md 54);
  // missing entries are 1. The option itself stays one row per unit; the planner runs
  // rt::StreamBlocks of it.
  std::vector<int32_t> stream_min_rows = {};
  // A pipe (tinyforge/pipe.h; pipe.stages > 0): this op stands for several ops run
  // interleaved by rows; in_place is kStream, inputs[in_place_input] is the first op's input
  // and outputs[0] the last op's output; the windows and the ops' scratch are scratch_bytes.
  // The stream choice is the pipe's (stream_options unused).
  rt::Pipe pipe{};
  // A kStream op whose kernel may also write its output exactly over
  // inputs[in_place_input] in one whole-tensor call (s8_dwconv__mve's single-band plane
  // path, s8_dwconv_mve_in_place): the planner takes that instead of a stream when it may
  // (no line buffer, whole-tensor speed).
  bool alias_whole = false;
};

// ops are in a valid execution order (every input produced by an earlier op or a graph
// input); the planner may choose another one.
struct GraphSpec {
  std::vector<TensorSpec> tensors;
  std::vector<OpSpec> ops;
};

struct PlanOptions {
  bool reorder = true;   // search for the order with the lowest peak where the graph branches
  bool in_place = true;  // use alias / streaming permissions
  int64_t align = 16;    // every buffer's alignment (the program format's)
  int64_t max_search_states = 200000;  // order search budget
  // Graphs with more ops get the search's first descent only (the cheapest ready op at each
  // step, O(ops x ready ops)): each search state costs O(ops), so the budget would be spent
  // on one descent anyway (docs/decisions.md).
  int64_t max_search_ops = 1000;
  // After placing, give each streamed op the most rows per kernel call (or whole-tensor
  // calls) that keep the plan's total bytes (docs/decisions.md 54).
  bool widen_streams = true;
};

// How one streamed op runs.
struct StreamChoice {
  int option = -1;         // index into OpSpec::stream_options
  // The geometry run: that option (one row per unit) or rt::StreamBlocks of it (k rows
  // per unit, k = geometry.rows_per_unit, one kernel call each).
  rt::StreamGeometry geometry{};
  int64_t delta = 0;       // offset(output) - offset(input)
  int32_t slots = 0;       // line-buffer units
  int64_t line_bytes = 0;  // slots * unit bytes, rounded up to the alignment
  int64_t footprint = 0;   // bytes input + output + line buffer span together
  rt::Pipe pipe{};         // a pipe op's (OpSpec::pipe), geometry its last stage's
  // False: a pipe whose output may not overlap its input (one slot, no overlap permission).
  bool in_place = true;
};

// The best way to stream with geometry `g`: smallest footprint; ties: the output closest to
// the input's start (or, when larger, to ending where the input ends).
StreamChoice ChooseStream(const rt::StreamGeometry& g, int64_t align);
// The same for a pipe (tinyforge/pipe.h; its windows set); option -1 if no offset works.
StreamChoice ChoosePipe(const rt::Pipe& pipe, int64_t align);
// A pipe whose output does not overlap its input: one line-buffer slot.
StreamChoice DisjointPipe(const rt::Pipe& pipe, int64_t align);

// The block sizes (output rows per kernel call) an op of `rows` rows may run with when it
// calls its kernel on at least `least` rows: `least`, then the powers of two above it, below
// `rows` (whole-tensor calls are the unstreamed op). The planner chooses among them; the
// emitter sizes scratch and links kernel paths for every one of them.
std::vector<int32_t> StreamBlockSizes(int32_t rows, int32_t least);

struct MemoryPlan {
  std::vector<int> order;               // op indices in execution order
  std::vector<Placement> tensors;       // per tensor
  std::vector<Placement> scratch;       // per op (region -1: none)
  std::vector<Placement> line_buffers;  // per op (region -1: not streamed)
  std::vector<StreamChoice> streams;    // per op (option -1: not streamed)
  std::vector<bool> aliased;            // per op: output written over its input
  std::vector<RegionUsage> regions;
  int64_t total_bytes = 0;  // sum of the regions' used bytes
  int64_t lower_bound = 0;  // max over steps of bytes live (in-place counted)
  Problem problem;          // what was placed (buffers: tensors, then
  Plan plan;                // scratch, then line buffers), verified
};

// Peak bytes live over the steps of `order` (in-place decisions as PlanGraph makes them):
// the quantity the order search minimizes.
int64_t LiveBytesPeak(const GraphSpec& g, const std::vector<int>& order, const PlanOptions& o);

// An execution order with a low LiveBytesPeak: exhaustive (memoized) over the graph's
// topological orders within the search budget, else the best found.
std::vector<int> ChooseOrder(const GraphSpec& g, const PlanOptions& o);

// Plans `g` into `regions`: order, lifetimes, in-place, placement, then Verify. Errors:
// malformed graphs, and "does not fit" (problem.h).
Expected<MemoryPlan> PlanGraph(const GraphSpec& g, const std::vector<Region>& regions,
                               const PlanOptions& options = {});

}  // namespace tinyforge::plan
