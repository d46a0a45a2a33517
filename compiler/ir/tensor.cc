#include "ir/tensor.h"

namespace tinyforge::ir {

std::optional<int64_t> CheckedNumElements(const Shape& shape) {
  if (shape.size() > static_cast<size_t>(kMaxRank)) return std::nullopt;
  int64_t n = 1;
  for (int64_t d : shape) {
    // Checking before multiplying keeps n * d <= kMaxElements^2 < 2^62: no overflow.
    if (d < 1 || d > kMaxElements) return std::nullopt;
    n *= d;
    if (n > kMaxElements) return std::nullopt;
  }
  return n;
}

int64_t NumElements(const Shape& shape) { return CheckedNumElements(shape).value_or(0); }

}  // namespace tinyforge::ir
