// The memory planner's abstract problem: buffers with sizes, alignments and lifetimes (in
// steps = op positions), overlap permissions, memory regions. Independent of the IR, so it
// can be tested on thousands of random instances (tests/plan). docs/memory-planning.md
// states the rules. Host side, C++20.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/expected.h"
#include "tinyforge/pipe.h"
#include "tinyforge/stream.h"

namespace tinyforge::plan {

// A RAM region arenas can go to (targets/boards/<board>/board.json, purpose "ram").
struct Region {
  std::string name;
  int64_t capacity = 0;  // bytes available to the planner
  int speed_rank = 0;    // 0 = fastest; ties are equally fast
};

// Something to place: an activation tensor, a kernel's scratch, a line buffer.
struct Buffer {
  std::string name;
  int64_t size = 0;    // bytes, > 0
  int64_t align = 16;  // power of two
  int first = 0;       // live from the start of step `first`
  int last = 0;        // to the end of step `last` (>= first)
  std::string pin;     // region name it must go to, or "" (the planner chooses)
  double heat = 0.0;   // higher: accessed more per byte; goes to fast regions first
};

enum class OverlapKind {
  // out occupies exactly in's bytes (elementwise kernels that read element i before
  // writing it). delta = 0 and equal sizes.
  kAlias,
  // out is produced row by row through a line buffer while in is consumed
  // (tinyforge/stream.h); safe for the offsets RunStream completes with.
  kStream,
};

// Permission for buffer `out` to overlap buffer `in` during step `step`, where `in` is last
// read and `out` first written (in.last == step == out.first). The planner places the two
// at offset(out) = offset(in) + delta when they share a region.
struct Overlap {
  int in = 0;
  int out = 0;
  int step = 0;
  OverlapKind kind = OverlapKind::kAlias;
  int64_t delta = 0;
  rt::StreamGeometry geometry{};  // kStream: units of in and out
  int line_buffer = -1;           // kStream: the buffer holding the line-buffer slots
  // kStream of a pipe (pipe.stages > 0, tinyforge/pipe.h): in is its first op's input, out
  // its last op's output, geometry the last op's; the pipe's schedule decides the flushes.
  rt::Pipe pipe{};
};

struct Problem {
  std::vector<Buffer> buffers;
  std::vector<Overlap> overlaps;
  std::vector<Region> regions;
  std::vector<std::string> step_names;  // for diagnostics ("op 'conv1' (#3)")
};

struct Placement {
  int region = -1;  // index into Problem::regions
  int64_t offset = 0;
};

struct RegionUsage {
  std::string name;
  int64_t used = 0;  // arena bytes: max over buffers of offset + size
  int64_t capacity = 0;
  int peak_step = -1;        // a step at which `used` bytes are in use (-1: region unused)
  int64_t live_at_peak = 0;  // bytes live at peak_step (overlapping buffers counted once)
};

struct Plan {
  std::vector<Placement> placements;  // one per buffer
  std::vector<RegionUsage> regions;   // one per problem region
};

// "op 'NAME' (#K)" for step K.
std::string StepLabel(const Problem& problem, int step);

// Places every buffer: clusters of buffers linked by overlaps move together; regions are
// filled fastest first (pins respected); inside a region, greedy by size (the lowest
// offset that conflicts with no placed buffer). Fails with "does not fit" naming the
// region, the bytes missing and the step that sets the peak.
Expected<Plan> Place(const Problem& problem);

// Independent check of a plan, sharing no code with Place: every buffer inside its region
// and aligned, pins honoured, and every two buffers that are live at the same step and
// share bytes covered by an overlap that is provably safe at their actual offsets (alias:
// identical bytes; stream: the line-buffer schedule completes and writes no input byte
// before its last read). Names the first violation.
Status Verify(const Problem& problem, const Plan& plan);

// Usage figures of `plan` per region (used, peak step, live bytes there).
std::vector<RegionUsage> MeasureUsage(const Problem& problem,
                                      const std::vector<Placement>& placements);

}  // namespace tinyforge::plan
