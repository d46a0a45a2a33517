// CRC-32 (IEEE 802.3 polynomial, reflected; zlib's crc32()) with a 16-entry table: 64 bytes
// of flash and two lookups per byte, a fair trade for a check that runs once at init.
#include "tinyforge/program_format.h"

namespace tinyforge::rt::fmt {
namespace {

constexpr uint32_t kNibbleTable[16] = {0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu,
                                       0x76dc4190u, 0x6b6b51f4u, 0x4db26158u, 0x5005713cu,
                                       0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
                                       0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu};

}  // namespace

uint32_t Crc32(const uint8_t* data, uint32_t size, uint32_t crc) {
  crc = ~crc;
  for (uint32_t i = 0; i < size; ++i) {
    crc ^= data[i];
    crc = (crc >> 4) ^ kNibbleTable[crc & 15u];
    crc = (crc >> 4) ^ kNibbleTable[crc & 15u];
  }
  return ~crc;
}

}  // namespace tinyforge::rt::fmt
