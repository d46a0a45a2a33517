// Internal: pieces of the graph-file reader shared between reader.cc and read_ops.cc.
#pragma once

#include <cstddef>

#include "import/json_util.h"
#include "ir/op.h"

namespace tinyforge::import {

// Reads ops[index] of a document with `num_tensors` tensors. Errors are
// "op 'NAME' (#K): FIELD: what" (or "op #K: ..." before the name is known), without FILE.
Expected<ir::Op> ReadOp(const Json& j, size_t index, size_t num_tensors);

// A tensor index list ("inputs", "outputs"): integers in [0, num_tensors).
Expected<std::vector<ir::TensorId>> ReadTensorIds(const Json& j, const std::string& field,
                                                  size_t num_tensors);

}  // namespace tinyforge::import
