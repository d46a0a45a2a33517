// Shape inference for every op type, with PyTorch's formulas, and the attribute range
// checks that go with them (stride >= 1, pool padding <= kernel / 2, ...).
//
// Error text is "FIELD: what", FIELD being `inputs[K]` or `attrs.NAME`, so the verifier
// and the graph-file reader can prefix the op: "op 'conv1' (#3): attrs.stride: ...".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::ir {

// Output shapes of an op of `type` with `attrs` on inputs of the given shapes. Checks the
// input count, ranks, the agreement of input shapes (channels, groups, cat dims, ...) and
// attribute ranges. The result has GetOpTypeInfo(type).num_outputs entries.
Expected<std::vector<Shape>> InferShapes(OpType type, const Attrs& attrs,
                                         std::span<const Shape> input_shapes);
// The same for an op of `g`. Precondition: the op's input ids are in range.
Expected<std::vector<Shape>> InferShapes(const Graph& g, const Op& op);

// floor((in + pad_before + pad_after - dilation * (kernel - 1) - 1) / stride) + 1.
// May be < 1 (no valid output); callers check.
int64_t ConvOutputSize(int64_t in, int64_t kernel, int64_t pad_before, int64_t pad_after,
                       int64_t stride, int64_t dilation);

// PyTorch's pooling_output_shape_pad_lr: like ConvOutputSize, rounded up when ceil_mode,
// except that the last window must start inside the input or the leading padding.
int64_t PoolOutputSize(int64_t in, int64_t kernel, int64_t pad_before, int64_t pad_after,
                       int64_t stride, int64_t dilation, bool ceil_mode);

// `axis` in [-rank, rank) mapped to [0, rank); nullopt if out of range.
std::optional<int64_t> NormalizeAxis(int64_t axis, int64_t rank);

// The dims a mean reduces, normalized to [0, rank) and sorted; an error if a dim is out of
// range or repeated, or if `dims` is empty ("attrs.dims: ...").
Expected<std::vector<int64_t>> NormalizeMeanDims(const MeanAttrs& attrs, int64_t rank);

}  // namespace tinyforge::ir
