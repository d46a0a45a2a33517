#include "support/file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>

namespace tinyforge {

namespace {

std::string Size(uint64_t bytes) {
  if (bytes % (uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes % (uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

Expected<std::vector<uint8_t>> ReadInputFile(const std::string& path, uint64_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error(path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(path + ": cannot open file: " + std::strerror(errno));
  const Error too_large(path + ": larger than the limit of " + Size(max_bytes) +
                        " for an input file");
  std::vector<uint8_t> bytes;
  try {
    // A regular file's size is known: refuse before reading. Devices and pipes report none
    // (or 0), so the read below is bounded as well.
    const auto size = std::filesystem::is_regular_file(path, ec)
                          ? std::filesystem::file_size(path, ec)
                          : static_cast<std::uintmax_t>(0);
    if (!ec && size > max_bytes) return too_large;
    if (!ec) bytes.reserve(static_cast<size_t>(size));
    constexpr size_t kChunk = size_t{1} << 20;
    while (in) {
      const size_t at = bytes.size();
      const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, max_bytes + 1 - at));
      bytes.resize(at + want);
      in.read(reinterpret_cast<char*>(bytes.data() + at), static_cast<std::streamsize>(want));
      bytes.resize(at + static_cast<size_t>(in.gcount()));
      if (bytes.size() > max_bytes) return too_large;
    }
  } catch (const std::bad_alloc&) {
    return Error(path + ": out of memory after reading " + std::to_string(bytes.size()) +
                 " bytes: the file is too large for this machine");
  }
  if (in.bad()) return Error(path + ": read error");
  return bytes;
}

}  // namespace tinyforge
