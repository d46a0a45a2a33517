// HostTensor: a value on the host (executor inputs, outputs, intermediates, .npy files).
// Owns typed storage (float / int8_t / int32_t), C order of `shape`. Quantization
// parameters are not part of the value: they live on the graph's ir::Tensor.
#pragma once

#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "ir/tensor.h"
#include "support/expected.h"

namespace tinyforge::exec {

class HostTensor {
 public:
  HostTensor() = default;
  // Zero-filled. Precondition: ir::CheckedNumElements(shape) succeeds.
  HostTensor(ir::DType dtype, ir::Shape shape);

  // From little-endian C-order bytes; error if the byte count does not match the shape.
  static Expected<HostTensor> FromBytes(ir::DType dtype, ir::Shape shape,
                                        std::span<const uint8_t> bytes);
  // float32 tensor holding `values` (size must match; convenient for tests).
  static HostTensor Float(ir::Shape shape, std::vector<float> values);
  static HostTensor Int8(ir::Shape shape, std::vector<int8_t> values);
  static HostTensor Int32(ir::Shape shape, std::vector<int32_t> values);

  ir::DType dtype() const { return dtype_; }
  const ir::Shape& shape() const { return shape_; }
  int64_t num_elements() const;
  int64_t num_bytes() const { return num_elements() * ir::DTypeSize(dtype_); }

  // Typed views; empty if the dtype differs.
  std::span<float> f32();
  std::span<const float> f32() const;
  std::span<int8_t> i8();
  std::span<const int8_t> i8() const;
  std::span<int32_t> i32();
  std::span<const int32_t> i32() const;

  // Element i as a double, whatever the dtype (for reports and comparisons).
  double at(int64_t i) const;

  // Little-endian C-order bytes.
  std::vector<uint8_t> ToBytes() const;

  // Same dtype, shape and bits (NaNs compare by bits).
  bool BitEqual(const HostTensor& other) const;

 private:
  ir::DType dtype_ = ir::DType::kFloat32;
  ir::Shape shape_;
  std::variant<std::vector<float>, std::vector<int8_t>, std::vector<int32_t>> data_;
};

}  // namespace tinyforge::exec
