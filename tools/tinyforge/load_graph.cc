#include "load_graph.h"

#include "import/graph_file.h"
#include "import/tflite/tflite_import.h"

namespace tinyforge::cli {

Expected<ir::Graph> LoadGraph(const std::string& path) {
  if (import::IsTfliteFile(path)) return import::ReadTfliteFile(path);
  return import::ReadGraphFile(path);
}

}  // namespace tinyforge::cli
