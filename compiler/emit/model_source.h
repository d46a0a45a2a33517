// Generated C/C++ for firmware: model.h (the tf_model_def to pass to tf_model_init, arena
// and I/O sizes) and model.cc (the program head as a const array in .rodata, each constant
// segment in its region's section, the arenas in .tf_arena.<region>, and a kernel table
// holding only the kernels the program uses). Host side.
#pragma once

#include <string>

#include "emit/emitter.h"

namespace tinyforge::emit {

struct ModelSources {
  std::string header;  // model.h
  std::string source;  // model.cc
};

// `c_name`: the C identifier in tf_model_<c_name>; empty: derived from the graph's name.
// `header_name`: how model.cc includes the header ("model.h").
ModelSources GenerateModelSources(const Emitted& e, std::string c_name = "",
                                  const std::string& header_name = "model.h");

// The graph's name as a C identifier: lower case, [a-z0-9_], not starting with a digit.
std::string CIdentifier(const std::string& name);

}  // namespace tinyforge::emit
