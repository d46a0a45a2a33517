// Loading the model file a subcommand is given: a TFLite flatbuffer (.tflite, or "TFL3" at
// byte 4) goes through the .tflite importer and arrives lowered (kind "int8", NHWC); any
// other file is read as a graph file (.tfg). Errors are the importer's one-line diagnostic.
#pragma once

#include <string>

#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::cli {

// `rounding` ("single" / "double", --rounding), when not empty, replaces the graph's
// requantization rounding (.tfg files default to single, .tflite to double: docs/numerics.md).
Expected<ir::Graph> LoadGraph(const std::string& path, const std::string& rounding = "");

}  // namespace tinyforge::cli
