// File-level entry points of the .tflite importer (tflite_import.h).
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "import/tflite/tflite_import.h"
#include "import/tflite/tflite_lower_internal.h"
#include "import/tflite/tflite_model.h"
#include "support/input_file.h"

namespace tinyforge::import {

Expected<ir::Graph> ImportTflite(std::span<const uint8_t> bytes, std::string_view file_label) {
  try {
    TF_ASSIGN_OR_RETURN(tflite::TfliteModel model, tflite::ReadTfliteModel(bytes, file_label));
    return tflite::internal::LowerTfliteModel(model);
  } catch (const std::bad_alloc&) {
    // A model whose tensors cannot be held in memory: an input problem, not a crash.
    return Error(std::string(file_label) + ": out of memory while importing");
  }
}

Expected<ir::Graph> ReadTfliteFile(const std::string& path) {
  try {
    TF_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                        ReadInputFile(path, {".tflite file", kMaxTfliteFileBytes, 4, "TFL3"}));
    return ImportTflite(bytes, path);
  } catch (const std::exception& e) {
    return Error(path + ": cannot read file: " + e.what());
  }
}

bool IsTfliteFile(const std::string& path) {
  const std::string ext = ".tflite";
  if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) {
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  return in && in.read(head, sizeof head) &&
         tflite::LooksLikeTflite(
             std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(head), sizeof head));
}

std::string TfliteOpName(size_t op_index, std::string_view tflite_type) {
  std::string digits = std::to_string(op_index);
  if (digits.size() < 2) digits = "0" + digits;
  return "op" + digits + "_" + std::string(tflite_type);
}

std::vector<std::pair<std::string, int>> SupportedTfliteBuiltins() {
  return tflite::internal::SupportedBuiltins();
}

}  // namespace tinyforge::import
