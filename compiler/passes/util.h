// Graph-rewriting helpers shared by the passes.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::passes {

// A name not yet used by any tensor: `base`, else base.1, base.2, ...
std::string UniqueTensorName(const ir::Graph& g, const std::string& base);
std::string UniqueOpName(const ir::Graph& g, const std::string& base);

// Adds a constant tensor (C order, little-endian host). quant may be empty for int32.
ir::TensorId AddConstant(ir::Graph& g, const std::string& name, ir::DType dtype, ir::Shape shape,
                         std::vector<uint8_t> bytes, std::optional<ir::QuantParams> quant = {});
ir::TensorId AddInt32Constant(ir::Graph& g, const std::string& name,
                              std::span<const int32_t> values);
template <class T>
std::vector<T> ConstantValues(const ir::Tensor& t) {
  std::vector<T> v(t.data ? t.data->size() / sizeof(T) : 0);
  if (!v.empty()) std::memcpy(v.data(), t.data->data(), v.size() * sizeof(T));
  return v;
}
template <class T>
std::vector<uint8_t> Bytes(std::span<const T> values) {
  std::vector<uint8_t> b(values.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), values.data(), b.size());
  return b;
}

// Every read of `from` (op inputs and graph outputs) reads `to` instead.
void ReplaceUses(ir::Graph& g, ir::TensorId from, ir::TensorId to);

// Removes op `index`, whose single input x and output y hold the same values (shape, dtype
// and quantization equal), keeping the later name where it matters: when y is a graph
// output, x's producer writes y (and x's readers read y); otherwise y's readers read x.
// Returns false (and changes nothing) when both x and y are graph inputs/outputs.
bool AliasAway(ir::Graph& g, size_t index);

// Removes ops none of whose outputs is read by a live op or is a graph output, then
// tensors nothing refers to (ir::CompactTensors). Returns the number of ops removed.
size_t RemoveDeadCode(ir::Graph& g);

// Permutes a constant's data and shape in place: result = x.permute(perm).
void PermuteConstant(ir::Tensor& t, std::span<const int64_t> perm);
ir::Shape PermuteShape(const ir::Shape& s, std::span<const int64_t> perm);

inline constexpr int64_t kNchwToNhwc[] = {0, 2, 3, 1};
inline constexpr int64_t kNhwcToNchw[] = {0, 3, 1, 2};

// Tensors at the graph's edges: its inputs and outputs and the tensors joined to them by
// quantize (after an input) or dequantize (before an output) only. Their rank-4 shapes are
// in Graph::io_layout, every other rank-4 activation in Graph::layout.
std::vector<bool> EdgeTensors(const ir::Graph& g);
// The layout a rank-4 non-constant tensor is stored in; nullopt for other tensors.
std::optional<ir::Layout> TensorLayout(const ir::Graph& g, const std::vector<bool>& edge,
                                       ir::TensorId t);

// The op's error prefix "op 'NAME' (#K)".
Error OpError(const ir::Graph& g, size_t index, const std::string& what);

}  // namespace tinyforge::passes
