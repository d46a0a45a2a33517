// Reading an input file whole, bounded: the one way the host tools read a graph, a .tflite
// model, a .npy array or a program image. A file larger than `max_bytes` (or a device such as
// /dev/zero that never ends) is rejected after reading at most max_bytes + 1 bytes, and
// running out of memory is reported, not thrown: "FILE: larger than the limit of 256 MiB"
// (invalid input). Errors: "FILE: is a directory", "FILE: cannot open file: <reason>",
// "FILE: read error".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/expected.h"

namespace tinyforge {

// The documented maximum size of any input file (docs/decisions.md): 256 MiB, far above the
// models a microcontroller runs, far below what the host tools can hold.
inline constexpr uint64_t kMaxInputFileBytes = uint64_t{256} << 20;

Expected<std::vector<uint8_t>> ReadInputFile(const std::string& path,
                                             uint64_t max_bytes = kMaxInputFileBytes);

}  // namespace tinyforge
