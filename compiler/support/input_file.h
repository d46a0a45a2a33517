// Reading an input file (a graph, a .tflite, a .npy, a program) into memory, bounded: never
// more than the documented maximum for its kind (docs/limits.md), and, when the file's first
// bytes are not the kind's magic, no more than those bytes (a device such as /dev/zero or a
// pipe is not read until memory runs out; the parser then rejects the short prefix with its
// usual message). Host side, C++20.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/expected.h"

namespace tinyforge {

// Largest input accepted per kind of file, in bytes (docs/limits.md).
inline constexpr uint64_t kMaxGraphFileBytes = uint64_t{1} << 30;   // .tfg
inline constexpr uint64_t kMaxTfliteFileBytes = uint64_t{1} << 30;  // .tflite
inline constexpr uint64_t kMaxNpyFileBytes = uint64_t{256} << 20;   // .npy
inline constexpr uint64_t kMaxProgramFileBytes = uint64_t{256} << 20;  // program.bin

struct InputFileKind {
  std::string_view what;       // "graph file", ".npy file", ...: for the size message
  uint64_t max_bytes = 0;      // a larger file is refused
  uint32_t magic_offset = 0;   // where the kind's magic starts
  std::string_view magic;      // empty: no early stop
};

// The whole file, or: its first magic_offset + magic.size() bytes if they do not end in the
// magic; an error (one line, naming the file) if it cannot be read, is a directory, or holds
// more than kind.max_bytes.
Expected<std::vector<uint8_t>> ReadInputFile(const std::string& path, const InputFileKind& kind);

}  // namespace tinyforge
