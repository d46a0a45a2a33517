#include "import/container.h"

#include <cstring>
#include <string>

#include "import/graph_file.h"

namespace tinyforge::import {
namespace {

uint64_t LoadLE(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void StoreLE(uint8_t* p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace

Expected<ContainerView> SplitContainer(std::span<const uint8_t> bytes) {
  const uint64_t size = bytes.size();
  const std::string size_text = std::to_string(size) + " bytes";
  if (size < 8 && (size == 0 || std::memcmp(bytes.data(), kMagic, size) == 0)) {
    return Error("header: truncated: file is " + size_text + ", the header alone is 24");
  }
  if (size < 8 || std::memcmp(bytes.data(), kMagic, 8) != 0) {
    return Error("header: bad magic: not a tinyforge graph file (expected \"TFGRAPH\\0\")");
  }
  if (size < kHeaderSize) {
    return Error("header: truncated: file is " + size_text + ", the header alone is 24");
  }
  const uint64_t version = LoadLE(bytes.data() + 8, 4);
  if (version != kFormatVersion) {
    return Error("header: version: unsupported container version " + std::to_string(version) +
                 " (this build reads version " + std::to_string(kFormatVersion) + ")");
  }
  const uint64_t json_len = LoadLE(bytes.data() + 12, 4);
  const uint64_t blob_len = LoadLE(bytes.data() + 16, 8);
  // json_len < 2^32, so blob_off cannot overflow; blob_off + blob_len can.
  const uint64_t blob_off = AlignUp(kHeaderSize + json_len, kBlobAlignment);
  const std::string lens =
      " (json_len " + std::to_string(json_len) + ", blob_len " + std::to_string(blob_len) + ")";
  if (blob_len > UINT64_MAX - blob_off || size < blob_off + blob_len) {
    return Error("header: truncated: file is " + size_text + ", the header announces " +
                 (blob_len > UINT64_MAX - blob_off ? std::string("more")
                                                   : std::to_string(blob_off + blob_len)) +
                 lens);
  }
  if (size > blob_off + blob_len) {
    return Error("header: " + std::to_string(size - blob_off - blob_len) +
                 " bytes of trailing data after the blob (file is " + size_text +
                 ", the header announces " + std::to_string(blob_off + blob_len) + ")");
  }
  for (uint64_t i = kHeaderSize + json_len; i < blob_off; ++i) {
    if (bytes[i] != 0) {
      return Error("header: padding byte at offset " + std::to_string(i) +
                   " between the JSON and the blob is not zero" + lens);
    }
  }
  ContainerView view;
  view.json = std::string_view(reinterpret_cast<const char*>(bytes.data()) + kHeaderSize, json_len);
  view.blob = bytes.subspan(blob_off, blob_len);
  return view;
}

std::vector<uint8_t> PackGraphFile(const GraphFileParts& parts) {
  const uint64_t json_len = parts.json.size();
  const uint64_t blob_off = AlignUp(kHeaderSize + json_len, kBlobAlignment);
  std::vector<uint8_t> out(blob_off + parts.blob.size(), 0);
  std::memcpy(out.data(), kMagic, 8);
  StoreLE(out.data() + 8, kFormatVersion, 4);
  StoreLE(out.data() + 12, json_len, 4);
  StoreLE(out.data() + 16, parts.blob.size(), 8);
  std::memcpy(out.data() + kHeaderSize, parts.json.data(), json_len);
  if (!parts.blob.empty()) std::memcpy(out.data() + blob_off, parts.blob.data(), parts.blob.size());
  return out;
}

}  // namespace tinyforge::import
