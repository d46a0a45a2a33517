// libFuzzer target for the program loader: any byte string given to tf_model_init must be
// rejected with a Status or accepted, never crash or touch memory outside what it was given
// (ASan + UBSan). Accepted programs are also run: the validators must have ruled out every
// out-of-bounds access the kernels could make.
//
// The first input byte selects a mode: odd = repair the CRCs after mutation, so that the
// mutated tables and op records reach the structural and per-op checks (with intact CRCs,
// almost every mutation stops at the CRC); even = take the bytes as they are.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tinyforge/kernel_table.h"
#include "tinyforge/program_format.h"
#include "tinyforge/runtime.h"

namespace {

namespace fmt = tinyforge::rt::fmt;

constexpr uint32_t kArenaBytes = 1024;  // per region: bounds the work a program can ask for

void RepairCrcs(uint8_t* p, size_t n) {
  if (n < fmt::kHeaderSize) return;
  const uint32_t head = fmt::LoadU32(p + fmt::kOffHeadSize);
  const uint32_t sections = fmt::LoadU32(p + fmt::kOffSectionCount);
  if (head < fmt::kHeaderSize || head > n || sections > fmt::kMaxSections) return;
  for (uint32_t s = 0; s < sections; ++s) {
    const uint8_t* e = p + fmt::kHeaderSize + s * fmt::kSectionEntrySize;
    if (e + fmt::kSectionEntrySize > p + head) return;
    if (fmt::LoadU32(e) != fmt::kSectionSegments) continue;
    const uint32_t off = fmt::LoadU32(e + 4), count = fmt::LoadU32(e + 12);
    for (uint32_t i = 0; i < count && i < fmt::kMaxSegments; ++i) {
      const uint64_t rec = uint64_t{off} + uint64_t{i} * fmt::kSegmentRecordSize;
      if (rec + fmt::kSegmentRecordSize > head) break;
      const uint32_t so = fmt::LoadU32(p + rec + 16), ss = fmt::LoadU32(p + rec + 20);
      if (uint64_t{so} + ss > n) continue;
      const uint32_t crc = fmt::Crc32(p + so, ss);
      std::memcpy(p + rec + 24, &crc, 4);
    }
  }
  const uint32_t crc = fmt::Crc32(p + fmt::kOffHeadCrc + 4, head - fmt::kOffHeadCrc - 4,
                                  fmt::Crc32(p, fmt::kOffHeadCrc));
  std::memcpy(p + fmt::kOffHeadCrc, &crc, 4);
}

struct alignas(16) Arena {
  uint8_t bytes[kArenaBytes];
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool repair = (data[0] & 1) != 0;
  // 16-byte aligned copy of the program (the loader requires the alignment).
  std::vector<uint8_t> storage(size - 1 + 16);
  uint8_t* image = storage.data() + (16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16;
  if (size > 1) std::memcpy(image, data + 1, size - 1);
  if (repair) RepairCrcs(image, size - 1);

  static Arena arenas[fmt::kMaxRegions];
  tf_arena defs[fmt::kMaxRegions];
  for (uint32_t i = 0; i < fmt::kMaxRegions; ++i) defs[i] = {arenas[i].bytes, kArenaBytes};
  tf_model_def def{};
  def.program = image;
  def.program_size = static_cast<uint32_t>(size - 1);
  def.arenas = defs;
  def.kernels = tf_all_kernels;
  def.num_kernels = tf_all_kernels_count;
  tinyforge::rt::Model model;
  // The program says how many regions it has; offer 0..8 arenas until the count matches.
  for (uint32_t n = 0; n <= fmt::kMaxRegions; ++n) {
    def.num_arenas = n;
    const tinyforge::rt::Status s = model.Init(def);
    if (s == tinyforge::rt::Status::kOk) {
      (void)model.Run();
      (void)model.Run();
      break;
    }
    if (s != tinyforge::rt::Status::kArenaMissing) break;
  }
  return 0;
}
