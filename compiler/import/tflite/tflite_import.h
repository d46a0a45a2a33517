// The .tflite importer: an int8 TensorFlow Lite flatbuffer -> a lowered int8 IR graph
// (kind "int8", NHWC, docs/lowered-ops.md), numerically identical to TensorFlow Lite Micro.
// Design, supported ops and diagnostics: docs/tflite-import.md.
//
// Every malformed or unsupported input is one line, never a crash or an exception:
//   FILE: flatbuffer: ...                  not a TFLite file, or a structural error
//   FILE: model: / operator_codes[K]: / tensor #K ('NAME'): / subgraph: ...
//   FILE: op #K (CONV_2D): FIELD: message  an op the importer rejects (unsupported type,
//                                          operands, options, quantization)
// The graph returned is verified (ir::Verify).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>
#include <string_view>

#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::import {

// Reads and imports `path` (FILE of diagnostics = path as given).
Expected<ir::Graph> ReadTfliteFile(const std::string& path);
// The same for bytes in memory.
Expected<ir::Graph> ImportTflite(std::span<const uint8_t> bytes, std::string_view file_label);

// True if `path` ends in ".tflite" (whatever it holds: the importer then says what is
// wrong with it) or holds a TFLite flatbuffer ("TFL3" identifier at byte 4). The CLI
// dispatches on this: any other file is read as a graph file.
bool IsTfliteFile(const std::string& path);

// The IR op lowered from TFLite operator K is named "opKK_<TYPE>" (e.g. "op03_CONV_2D",
// as in the TFLM golden dumps), extra ops get a suffix ("op11_FULLY_CONNECTED.flatten").
std::string TfliteOpName(size_t op_index, std::string_view tflite_type);

// The builtin operators the importer lowers and the highest version of each it accepts,
// sorted by name (`tinyforge ops`, docs/ops.md).
std::vector<std::pair<std::string, int>> SupportedTfliteBuiltins();

}  // namespace tinyforge::import
