// Reads the IR text that ir/printer.h writes, so pass tests can be written as text in,
// text out. PrintGraph(ParseGraph(text)) == text for text PrintGraph produced with
// max_list = 0 and constants inline (blob(...) constants cannot be read back).
//
// Accepted beyond the printer's output: blank lines and `//` comment lines; omitted names
// (tensor %8 becomes "t8", op #3 becomes "op3"). Every tensor id from 0 to the largest must
// be declared exactly once (as input, const, tensor or op output).
//
// The result is NOT verified: call ir::Verify (tests of the verifier parse invalid IR).
// Errors: "line N: what".
#pragma once

#include <string_view>

#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::ir {

Expected<Graph> ParseGraph(std::string_view text);

}  // namespace tinyforge::ir
