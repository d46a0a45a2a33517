#include "plan/board_regions.h"

#include <algorithm>

namespace tinyforge::plan {

std::vector<Region> RamRegions(const target::Board& board, const FirmwareReserve& reserve) {
  std::vector<Region> out;
  for (const target::MemoryRegion& m : board.memory) {
    if (m.purpose != "ram") continue;
    int64_t capacity = m.size;
    if (m.name == board.data_region) {
      capacity -= (reserve.stack_size >= 0 ? reserve.stack_size : board.stack_size) +
                  reserve.data_bss_bytes + kHandlerStacks;
    }
    out.push_back({m.name, std::max<int64_t>(capacity, 0), m.speed_rank});
  }
  return out;
}

}  // namespace tinyforge::plan
