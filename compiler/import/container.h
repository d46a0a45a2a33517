// Internal: the container layer of the graph file (header, padding, blob).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "support/expected.h"

namespace tinyforge::import {

struct ContainerView {
  std::string_view json;          // json_len bytes after the header
  std::span<const uint8_t> blob;  // blob_len bytes at blob_off
};

// Checks magic, version, that the file is exactly blob_off + blob_len bytes and that the
// padding is zero. Errors read "header: ...". The views point into `bytes`.
Expected<ContainerView> SplitContainer(std::span<const uint8_t> bytes);

}  // namespace tinyforge::import
