// The graph file (`.tfg`, docs/graph-format.md): reader and writer.
//
// Reading validates everything before any use, in this order: container header (magic,
// version, lengths against the file size, zero padding), JSON syntax, top-level keys, each
// tensor (name, shape, dtype, quant, constant range inside the blob and size), each op
// (type, tensor indices, attributes present and well typed), then the IR verifier
// (topological order, single producer, dtypes, shapes). The first problem is returned as
// one line:
//   FILE: header: ...                      container
//   FILE: json: ...                        JSON syntax
//   FILE: graph: FIELD: ...                top-level keys
//   FILE: tensor 'NAME' (#K): FIELD: ...   (tensor #K before its name is known)
//   FILE: op 'NAME' (#K): FIELD: ...
// No exception escapes.
//
// Extensions to the format doc (docs/graph-format.md is silent): JSON's non-standard
// NaN/Infinity/-Infinity tokens (Python's json.dumps default) are read as numbers so that
// a NaN scale is reported as "quant.scale[K]: must be finite" rather than a syntax error.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::import {

inline constexpr char kMagic[8] = {'T', 'F', 'G', 'R', 'A', 'P', 'H', '\0'};
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr uint64_t kHeaderSize = 24;     // magic, u32 version, u32 json_len, u64 blob_len
inline constexpr uint64_t kBlobAlignment = 64;  // blob_off = align64(24 + json_len)
inline constexpr uint64_t kConstantAlignment = 16;  // offsets the writer uses inside the blob

// Reads `path`; the diagnostic's FILE is `path` as given. The graph returned is verified.
Expected<ir::Graph> ReadGraphFile(const std::string& path);
// The same for bytes in memory; `file_label` is the FILE of diagnostics.
Expected<ir::Graph> ParseGraphFile(std::span<const uint8_t> bytes, std::string_view file_label);

struct WriteOptions {
  std::string producer;  // overrides Graph::producer when non-empty
  // Verify before writing (refuse invalid graphs). Tests switch it off to write malformed
  // files on purpose.
  bool verify = true;
};

// The JSON document and the constant blob, before the container is put around them.
// Constants are laid out in tensor order, each at a 16-byte aligned offset.
struct GraphFileParts {
  std::string json;
  std::vector<uint8_t> blob;
};

Expected<GraphFileParts> SerializeGraph(const ir::Graph& g, const WriteOptions& options = {});
// Header + JSON + zero padding to 64 + blob, with the header's lengths computed from `parts`.
std::vector<uint8_t> PackGraphFile(const GraphFileParts& parts);
Expected<std::vector<uint8_t>> WriteGraphBytes(const ir::Graph& g,
                                               const WriteOptions& options = {});
Status WriteGraphFile(const ir::Graph& g, const std::string& path,
                      const WriteOptions& options = {});

}  // namespace tinyforge::import
