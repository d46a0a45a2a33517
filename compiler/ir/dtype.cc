#include "ir/dtype.h"

#include <limits>

namespace tinyforge::ir {

std::string_view DTypeName(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "float32";
    case DType::kInt8:
      return "int8";
    case DType::kInt32:
      return "int32";
  }
  return "?";
}

std::optional<DType> ParseDType(std::string_view name) {
  for (DType t : {DType::kFloat32, DType::kInt8, DType::kInt32}) {
    if (DTypeName(t) == name) return t;
  }
  return std::nullopt;
}

int64_t DTypeSize(DType t) { return t == DType::kInt8 ? 1 : 4; }

bool IsQuantized(DType t) { return t != DType::kFloat32; }

int64_t DTypeMin(DType t) {
  return t == DType::kInt8 ? std::numeric_limits<int8_t>::min()
                           : std::numeric_limits<int32_t>::min();
}

int64_t DTypeMax(DType t) {
  return t == DType::kInt8 ? std::numeric_limits<int8_t>::max()
                           : std::numeric_limits<int32_t>::max();
}

}  // namespace tinyforge::ir
