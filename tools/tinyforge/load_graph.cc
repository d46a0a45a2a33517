#include "load_graph.h"

#include <optional>

#include "import/graph_file.h"
#include "import/tflite/tflite_import.h"

namespace tinyforge::cli {

Expected<ir::Graph> LoadGraph(const std::string& path, const std::string& rounding) {
  std::optional<ir::Rounding> mode;
  if (!rounding.empty()) {
    mode = ir::ParseRounding(rounding);
    if (!mode) return Error("--rounding: '" + rounding + "' is not single or double");
  }
  TF_ASSIGN_OR_RETURN(ir::Graph g, import::IsTfliteFile(path) ? import::ReadTfliteFile(path)
                                                              : import::ReadGraphFile(path));
  if (mode) g.rounding = *mode;
  return g;
}

}  // namespace tinyforge::cli
