// Loading the model file a subcommand is given: a TFLite flatbuffer (.tflite, or "TFL3" at
// byte 4) goes through the .tflite importer and arrives lowered (kind "int8", NHWC); any
// other file is read as a graph file (.tfg). Errors are the importer's one-line diagnostic.
#pragma once

#include <string>

#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::cli {

Expected<ir::Graph> LoadGraph(const std::string& path);

}  // namespace tinyforge::cli
