#include "support/input_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <memory>

namespace tinyforge {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

std::string Mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

Expected<std::vector<uint8_t>> ReadInputFile(const std::string& path, const InputFileKind& kind) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error(path + ": is a directory");
  const std::string too_big = path + ": larger than the " + Mib(kind.max_bytes) + " maximum for a " +
                              std::string(kind.what) + " (docs/limits.md)";
  // A regular file's size is known before anything is read.
  if (std::filesystem::is_regular_file(path, ec)) {
    const uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > kind.max_bytes) return Error(too_big);
  }
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return Error(path + ": cannot open file: " + std::strerror(errno));
  std::vector<uint8_t> bytes;
  const size_t magic_end = kind.magic.empty() ? 0 : kind.magic_offset + kind.magic.size();
  try {
    // Read in growing chunks; check the magic as soon as it is in, the bound always.
    size_t chunk = magic_end > 0 ? magic_end : 64 * 1024;
    bool magic_checked = magic_end == 0;
    for (;;) {
      const size_t have = bytes.size();
      bytes.resize(have + chunk);
      const size_t got = std::fread(bytes.data() + have, 1, chunk, f.get());
      bytes.resize(have + got);
      if (std::ferror(f.get())) return Error(path + ": read error: " + std::strerror(errno));
      if (bytes.size() > kind.max_bytes) return Error(too_big);
      if (!magic_checked && bytes.size() >= magic_end) {
        magic_checked = true;
        if (std::memcmp(bytes.data() + kind.magic_offset, kind.magic.data(), kind.magic.size()) !=
            0) {
          return bytes;  // not this kind: the parser names what is wrong
        }
      }
      if (got < chunk) break;  // end of file
      chunk = std::min<size_t>(std::max<size_t>(bytes.size(), 64 * 1024),
                               static_cast<size_t>(kind.max_bytes + 1 - bytes.size()));
      if (chunk == 0) chunk = 1;
    }
  } catch (const std::bad_alloc&) {
    return Error(path + ": out of memory while reading the file");
  }
  return bytes;
}

}  // namespace tinyforge
