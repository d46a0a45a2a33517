// Graph-rewriting helpers shared by the passes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::passes {

// The names used by lists of tensors or ops that only grow (a graph's tensors, an op list
// being built): Unique(base) returns what a scan of the lists would, `base` if unused, else
// the first unused of base.1, base.2, ..., in O(1) amortized instead of O(items). Items
// appended since the last call are indexed then; none may be renamed or removed while the
// index is in use (a pass builds one and drops it before compacting). Unique() does not
// reserve the name: appending the item that carries it does.
template <class Item>
class NameIndex {
 public:
  explicit NameIndex(std::initializer_list<const std::vector<Item>*> lists)
      : lists_(lists), seen_(lists_.size(), 0) {}

  std::string Unique(const std::string& base) {
    CatchUp();
    if (!used_.count(base)) return base;
    int& i = next_[base];  // names only get used, so the first free suffix only grows
    for (i = std::max(i, 1);; ++i) {
      std::string n = base + "." + std::to_string(i);
      if (!used_.count(n)) return n;
    }
  }

 private:
  void CatchUp() {
    for (size_t l = 0; l < lists_.size(); ++l) {
      for (; seen_[l] < lists_[l]->size(); ++seen_[l]) used_.insert((*lists_[l])[seen_[l]].name);
    }
  }

  std::vector<const std::vector<Item>*> lists_;
  std::vector<size_t> seen_;
  std::unordered_set<std::string> used_;
  std::unordered_map<std::string, int> next_;
};
using TensorNames = NameIndex<ir::Tensor>;  // over {&g.tensors}

// A name not yet used by any tensor: `base`, else base.1, base.2, ... (O(tensors) per call:
// a pass adding many tensors uses one TensorNames instead).
std::string UniqueTensorName(const ir::Graph& g, const std::string& base);
std::string UniqueOpName(const ir::Graph& g, const std::string& base);

// Adds a constant tensor (C order, little-endian host). quant may be empty for int32.
// `names` indexes g.tensors.
ir::TensorId AddConstant(ir::Graph& g, TensorNames& names, const std::string& name,
                         ir::DType dtype, ir::Shape shape, std::vector<uint8_t> bytes,
                         std::optional<ir::QuantParams> quant = {});
ir::TensorId AddInt32Constant(ir::Graph& g, TensorNames& names, const std::string& name,
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
// The layout a rank-4 non-constant tensor is stored in (NCHW: PyTorch's order, also for a
// tensor the layout pass kept so, Tensor::pytorch_order); nullopt for other tensors.
std::optional<ir::Layout> TensorLayout(const ir::Graph& g, const std::vector<bool>& edge,
                                       ir::TensorId t);

// The op's error prefix "op 'NAME' (#K)".
Error OpError(const ir::Graph& g, size_t index, const std::string& what);

}  // namespace tinyforge::passes
