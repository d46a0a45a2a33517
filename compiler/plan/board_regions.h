// The memory a board offers the planner: its RAM regions net of what the firmware itself
// takes (targets/common/ld/tf_sections.ld). Host side, C++20.
#pragma once

#include <cstdint>
#include <vector>

#include "plan/problem.h"
#include "target/board.h"

namespace tinyforge::plan {

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
std::vector<Region> RamRegions(const target::Board& board, const FirmwareReserve& reserve = {});

}  // namespace tinyforge::plan
