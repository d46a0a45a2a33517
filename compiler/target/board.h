// Board descriptions (targets/boards/<board>/board.json, schema tinyforge.board/1 in
// targets/boards/board.schema.json) as the planner and emitter need them: memory regions with
// speed ranks, where code, weights and data go, the ISA class that picks kernel variants.
// The C++ reader of board.json (python/tinyforge/board_catalog.py is the Python one,
// targets/cmake/TinyforgeFirmware.cmake the CMake one). Host side, C++20.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/expected.h"

namespace tinyforge::target {

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
  bool emulated = false;  // has a "qemu" section: tinyforge can build and run firmware for it
  std::vector<MemoryRegion> memory;

  const MemoryRegion* Find(std::string_view region) const;
};

// `target` is a board name ("an547", "stm32h743"), a CPU an emulated board carries
// ("cortex-m55": that board), or a path to a board.json (a user's board). With `memory`
// (`--memory name:size@addr[:rank][:kind],...`, docs/boards.md) `target` is a CPU of
// targets/cpus.json and the board is made from the spec. Boards are looked up in
// `boards_dir` (targets/boards of this source tree unless given).
Expected<Board> LoadBoard(std::string_view target, std::string boards_dir = "",
                          std::string_view memory = "");
std::vector<std::string> KnownTargets(std::string boards_dir = "");

// The folder holding targets/, runtime/ and kernels/ (boards, cpus.json, the sources firmware
// compiles): $TINYFORGE_ROOT when set; else <this executable's folder>/../share/tinyforge when
// it has targets/boards (an installed tinyforge: `cmake --install`, or pip's data folder
// beside the venv's bin/); else the source tree this binary was built from.
std::string DataRoot();

}  // namespace tinyforge::target
