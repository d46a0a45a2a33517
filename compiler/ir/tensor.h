// Tensors of the IR. A tensor is a value: a graph input, a constant (it owns its bytes), or
// the output of exactly one op. Shapes are PyTorch's (NCHW activations, OIHW conv weights)
// until a layout pass rewrites them; the shape is always the logical C-order shape of `data`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/quant.h"

namespace tinyforge::ir {

using Shape = std::vector<int64_t>;  // each dim >= 1; [] is a scalar (1 element)

inline constexpr int kMaxRank = 6;
// Largest tensor the host tools accept, in elements. A bound far above any microcontroller
// model that keeps every size computation (bytes, MACs) far from int64 overflow.
inline constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

// Number of elements, or nullopt if a dim is < 1, the rank exceeds kMaxRank or the count
// exceeds kMaxElements.
std::optional<int64_t> CheckedNumElements(const Shape& shape);
// Precondition: CheckedNumElements(shape) succeeds (e.g. the graph was verified).
int64_t NumElements(const Shape& shape);

struct Tensor {
  std::string name;  // unique in its graph, non-empty
  Shape shape;
  DType dtype = DType::kFloat32;
  std::optional<QuantParams> quant;  // required for int8/int32, absent for float32
  // Constant bytes: C order of `shape`, little-endian, size == numel * DTypeSize(dtype).
  std::optional<std::vector<uint8_t>> data;
  // A rank-4 activation the layout pass left in PyTorch's element order while the graph's
  // layout is NHWC (docs/passes.md, layout): an attention block's [B, H, T, D], a
  // channels-last block between permutes. passes::TensorLayout reads it (on rank-4 tensors
  // only: a later pass may reshape one).
  bool pytorch_order = false;

  bool is_constant() const { return data.has_value(); }
  int64_t num_elements() const { return NumElements(shape); }
  int64_t num_bytes() const { return NumElements(shape) * DTypeSize(dtype); }
};

}  // namespace tinyforge::ir
