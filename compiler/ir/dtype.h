// Element types of tensors. float32 carries activations of float graphs and the float side
// of QDQ graphs; int8 (activations, weights) and int32 (bias) are quantized and always carry
// QuantParams.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tinyforge::ir {

enum class DType : uint8_t { kFloat32, kInt8, kInt32 };

// "float32", "int8", "int32": the spelling of the graph file and of IR text.
std::string_view DTypeName(DType t);
std::optional<DType> ParseDType(std::string_view name);

// Bytes per element (4, 1, 4).
int64_t DTypeSize(DType t);

// True for int8/int32: tensors of these types need QuantParams.
bool IsQuantized(DType t);

// Representable integer range of an integer dtype ([-128, 127], [-2^31, 2^31-1]).
// Precondition: IsQuantized(t).
int64_t DTypeMin(DType t);
int64_t DTypeMax(DType t);

}  // namespace tinyforge::ir
