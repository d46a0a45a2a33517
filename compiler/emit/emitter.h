// The program emitter: a lowered int8 graph (docs/lowered-ops.md) and a board -> a planned
// program image (docs/program-format.md), plus what model.h/.cc and the report need.
//
//   lowered graph --(EncodeOps: kernel per op for the board's ISA, parameter structs from
//   quant/op_params.h, constants)--> GraphSpec --(plan::PlanGraph: order, in-place,
//   placement, verification)--> Program --(WriteProgram)--> program.bin
//
// Reshapes are views: their output shares the input's buffer and emits no op. Host side.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "emit/encode_ops.h"
#include "emit/program_writer.h"
#include "ir/graph.h"
#include "plan/board_regions.h"
#include "plan/graph_plan.h"
#include "support/expected.h"
#include "tinyforge/kernel_ids.h"

namespace tinyforge::emit {

struct EmitOptions {
  std::string target = "cortex-m55";  // board name, CPU, or board.json path
  std::string memory;  // with a CPU target: the board's regions (target::LoadBoard)
  // --place TENSOR=REGION: the tensor's buffer goes to that RAM region.
  std::vector<std::pair<std::string, std::string>> place;
  // --weights-in OP=REGION: the op's constants go to that code/ROM region.
  std::vector<std::pair<std::string, std::string>> weights_in;
  plan::FirmwareReserve reserve;
  plan::PlanOptions plan;
  // Conv, depthwise and pools may run in place by blocks of output rows (1x1 convs by
  // pixels) through a small line buffer (docs/memory-planning.md, docs/decisions.md 54, 71):
  // kOff whole-tensor calls only (--speed-over-ram); kBudget (the CLI's default) only as
  // finely as each kernel variant's listed per-call cost keeps the op within 10 % of its
  // whole-tensor instructions (TF_KERNEL_STREAM lines; a variant without one does not
  // stream); kMinRam (--min-ram) by the fewest pixels per call of the kernel's class
  // (detail::StreamMinPixels). Aliasing is used either way.
  StreamMode stream = StreamMode::kOff;
  // --stream-pixels: the fewest output pixels per kernel call of a streamed op, overriding
  // the mode's figure (0: the mode's).
  int32_t stream_pixels = 0;
  // The kernel per op by RAM (docs/decisions.md 58): where an op's scratch is live at the
  // plan's peak, another variant of the same instruction set with less scratch if that
  // lowers the plan's total; elsewhere the fastest.
  bool kernels_by_ram = false;
  // Lean forms of kernels where they lower the plan (docs/decisions.md 98); off with
  // --speed-over-ram.
  bool lean = true;
  // Pipes (docs/decisions.md 84, tinyforge/pipe.h): chains of streamed convs and depthwise
  // convs run interleaved by rows, so the tensors between them exist only as windows of
  // rows, wherever that lowers the plan's total (with stream == kMinRam, --min-ram).
  bool pipes = true;
  // --kernels: the kernel variants' instruction-set class, "auto" (the board's) or one the
  // board can run: ref (portable), scalar, dsp, mve (docs/boards.md).
  std::string kernels = "auto";
  // --optimize: "speed" (the fastest kernels and paths) or "size" (the least kernel code:
  // __ref for ops doing little of the work, the smallest paths; docs/decisions.md 59).
  std::string optimize = "speed";
  // --hot-constants: "off", "auto" (the fastest RAM region faster than the weights region)
  // or a RAM region: the hottest ops' constants (MACs per constant byte) that fit the room
  // the activation plan leaves there go to a segment copied into that region at init; the
  // flash keeps the image (docs/memory-planning.md, docs/decisions.md 65).
  std::string hot_constants = "off";
};

// One op of the program, for reports.
struct EmittedOp {
  std::string name;  // the IR op's name
  std::string type;  // "qconv2d"
  const rt::KernelInfo* kernel = nullptr;
  int64_t macs = 0;
  int64_t scratch_bytes = 0;
  bool streamed = false;  // in place by rows through a line buffer
  bool pixels = false;    // ... cut into pixels (1x1 conv)
  int64_t line_bytes = 0;
  int32_t stream_rows = 0;  // rows (pixels) per kernel call when streamed
  bool aliased = false;  // output written over its input
  // A pipe member (docs/decisions.md 84): its stage and the pipe's stages ({-1, 0}: none);
  // window_bytes: the window it writes (all stages but the last).
  int32_t pipe_stage = -1, pipe_stages = 0;
  int64_t window_bytes = 0;
  // Bytes of the op's operands: activations read and written (an operand read twice counts
  // twice), constants read (weights, bias, tables); scratch and line buffers not counted.
  int64_t activation_bytes = 0;
  int64_t constant_bytes = 0;
  std::string constants_region;  // where the op's constants are read (a RAM region: hot)
  // The kernel's lean form (LEAN op flag, docs/decisions.md 98) and the constant bytes it
  // adds (counted in constant_bytes: s8_conv__mve's tables in the bias operand).
  bool lean = false;
  int64_t lean_bytes = 0;
};

// A path linked on demand (kernels/common/paths.h) of a kernel the program uses.
struct EmittedPath {
  const rt::KernelInfo* kernel = nullptr;
  std::string symbol;
  bool operator==(const EmittedPath& o) const { return symbol == o.symbol; }
};

// One planned buffer, for reports.
struct EmittedBuffer {
  std::string name;
  std::string region;
  int64_t offset = 0, bytes = 0;
  int first = 0, last = 0;  // program op indices
};

struct Emitted {
  target::Board board;
  Program program;             // the structured program (what program.bin encodes)
  std::vector<uint8_t> image;  // program.bin
  ImageLayout layout;          // head and segment byte ranges of `image`
  plan::MemoryPlan plan;
  std::vector<EmittedOp> ops;  // in program order
  std::vector<EmittedBuffer> buffers;
  std::vector<const rt::KernelInfo*> kernels;  // distinct kernels, most used first
  std::vector<EmittedPath> paths;              // their paths linked on demand the ops take
  std::vector<std::string> segment_regions;    // memory region of each segment
  // Per segment: true if its region is a RAM region (--hot-constants): tf_model_init copies
  // it there from its image in the board's weights region.
  std::vector<bool> segment_in_ram;
  int64_t ram_constant_bytes = 0;  // bytes of those segments (RAM, beside the plan's)
  std::string model_name;                      // the graph's name
};

// Plans and encodes `g` (kind int8, NHWC) for options.target. Errors name the op, tensor or
// region; "does not fit" errors come from the planner.
Expected<Emitted> EmitProgram(const ir::Graph& g, const EmitOptions& options);

}  // namespace tinyforge::emit
