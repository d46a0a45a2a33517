// Board descriptions (targets/boards/<board>/board.json, schema tinyforge.board/1) as the
// planner and emitter need them: memory regions with speed ranks, where code, weights and
// data go, the ISA class that picks kernel variants. Host side, C++20.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plan/problem.h"
#include "support/expected.h"

namespace tinyforge::plan {

struct MemoryRegion {
  std::string name;
  uint64_t base = 0;
  int64_t size = 0;
  int speed_rank = 0;
  std::string purpose;  // "code", "ram", "rom"
  std::string section;  // ".tf_arena.<name>" or ".tf_const.<name>"
};

struct Board {
  std::string name;       // "an547"
  std::string cpu;        // "cortex-m55"
  std::string isa_class;  // "scalar", "dsp", "mve"
  std::string code_region, weights_region, data_region, stack_region;
  int64_t stack_size = 0;
  std::vector<MemoryRegion> memory;

  const MemoryRegion* Find(std::string_view region) const;
};

// `target` is a board name ("an547"), a CPU the boards carry ("cortex-m55"), or a path to
// a board.json. Boards are looked up in `boards_dir` (targets/boards of this source tree
// unless given).
Expected<Board> LoadBoard(std::string_view target, std::string boards_dir = "");
std::vector<std::string> KnownTargets(std::string boards_dir = "");

// What the firmware itself takes from the region holding stacks, .data and .bss (no heap:
// targets/common/ld/tf_sections.ld): the planner may use the rest.
struct FirmwareReserve {
  int64_t stack_size = -1;        // -1: the board's default
  int64_t data_bss_bytes = 4096;  // the firmware's own .data + .bss (estimate)
};
inline constexpr int64_t kHandlerStacks = 0x400 + 0x200 + 256;  // MSP, fault stack, guard
// The firmware's code (runtime, kernels, board support, newlib) in the code region, as the
// flash check of constants counts it (an estimate; docs/decisions.md).
inline constexpr int64_t kFirmwareCodeBytes = 64 * 1024;

// The board's RAM regions as planner regions, with capacities net of the firmware reserve
// in the data region. Regions with purpose "ram" only; speed ranks as in board.json.
std::vector<Region> RamRegions(const Board& board, const FirmwareReserve& reserve = {});

}  // namespace tinyforge::plan
