#include "exec/host_tensor.h"

#include <bit>
#include <cstring>

namespace tinyforge::exec {

// The byte conversions below are plain memcpy: the host tools assume a little-endian host,
// which is every platform the compiler targets today (x86-64, AArch64).
static_assert(std::endian::native == std::endian::little, "host must be little-endian");

using ir::DType;

HostTensor::HostTensor(DType dtype, ir::Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  const size_t n = static_cast<size_t>(ir::NumElements(shape_));
  switch (dtype_) {
    case DType::kFloat32:
      data_ = std::vector<float>(n, 0.0f);
      break;
    case DType::kInt8:
      data_ = std::vector<int8_t>(n, 0);
      break;
    case DType::kInt32:
      data_ = std::vector<int32_t>(n, 0);
      break;
  }
}

Expected<HostTensor> HostTensor::FromBytes(DType dtype, ir::Shape shape,
                                           std::span<const uint8_t> bytes) {
  if (!ir::CheckedNumElements(shape)) return Error("invalid shape");
  HostTensor t(dtype, std::move(shape));
  if (static_cast<int64_t>(bytes.size()) != t.num_bytes()) {
    return Error(std::to_string(bytes.size()) + " bytes for " + std::to_string(t.num_bytes()) +
                 "-byte tensor");
  }
  std::visit(
      [&](auto& v) {
        if (!bytes.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
      },
      t.data_);
  return t;
}

HostTensor HostTensor::Float(ir::Shape shape, std::vector<float> values) {
  HostTensor t(DType::kFloat32, std::move(shape));
  if (values.size() == static_cast<size_t>(t.num_elements())) t.data_ = std::move(values);
  return t;
}

HostTensor HostTensor::Int8(ir::Shape shape, std::vector<int8_t> values) {
  HostTensor t(DType::kInt8, std::move(shape));
  if (values.size() == static_cast<size_t>(t.num_elements())) t.data_ = std::move(values);
  return t;
}

HostTensor HostTensor::Int32(ir::Shape shape, std::vector<int32_t> values) {
  HostTensor t(DType::kInt32, std::move(shape));
  if (values.size() == static_cast<size_t>(t.num_elements())) t.data_ = std::move(values);
  return t;
}

int64_t HostTensor::num_elements() const {
  return std::visit([](const auto& v) { return static_cast<int64_t>(v.size()); }, data_);
}

template <class T, class V>
static std::span<T> View(V& data) {
  using Vec = std::vector<std::remove_const_t<T>>;
  auto* v = std::get_if<Vec>(&data);
  return v ? std::span<T>(*v) : std::span<T>();
}

std::span<float> HostTensor::f32() { return View<float>(data_); }
std::span<const float> HostTensor::f32() const { return View<const float>(data_); }
std::span<int8_t> HostTensor::i8() { return View<int8_t>(data_); }
std::span<const int8_t> HostTensor::i8() const { return View<const int8_t>(data_); }
std::span<int32_t> HostTensor::i32() { return View<int32_t>(data_); }
std::span<const int32_t> HostTensor::i32() const { return View<const int32_t>(data_); }

double HostTensor::at(int64_t i) const {
  return std::visit([&](const auto& v) { return static_cast<double>(v[static_cast<size_t>(i)]); },
                    data_);
}

std::vector<uint8_t> HostTensor::ToBytes() const {
  std::vector<uint8_t> out(static_cast<size_t>(num_bytes()));
  std::visit(
      [&](const auto& v) {
        if (!out.empty()) std::memcpy(out.data(), v.data(), out.size());
      },
      data_);
  return out;
}

bool HostTensor::BitEqual(const HostTensor& other) const {
  return dtype_ == other.dtype_ && shape_ == other.shape_ && ToBytes() == other.ToBytes();
}

}  // namespace tinyforge::exec
