// Internal to fold-qdq (fold_qdq.cc drives, fold_qdq_ops.cc builds one int8 op per float op).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/util.h"
#include "support/expected.h"

namespace tinyforge::passes::fold {

struct Context {
  ir::Graph& g;
  std::vector<int> producer;                 // of the input graph
  std::vector<std::vector<int>> consumers;   // of the input graph
  std::vector<bool> absorbed;                // quantize ops that became a folded op's output
  std::vector<ir::Op> out;                   // the rewritten op list
  size_t index = 0;                          // the op being folded
  TensorNames tensor_names{{&g.tensors}};
  NameIndex<ir::Op> op_names{{&g.ops, &out}};

  const ir::Op& op() const { return g.ops[index]; }
  Error Fail(const std::string& what) const;
  // An op name unused by the input graph and by the ops built so far.
  std::string UniqueOpName(const std::string& base);
};

// The int8/int32 tensor standing for float tensor `t`: the input of the dequantize that
// produced it, or `t` itself once it is int8 (an earlier folded op's output).
Expected<ir::TensorId> Source(const Context& c, ir::TensorId t, const char* role);
// A constant source (weights, bias): int8/int32 constant behind a dequantize.
Expected<ir::TensorId> ConstantSource(const Context& c, ir::TensorId t, const char* role);

// The int8 tensor the folded op writes: the output of the quantize that reads the op's
// float output (that quantize is absorbed), or, when relu/hardtanh ops stand between, the
// float output itself retyped to int8 with the quantize's parameters (the activations
// then fold to clamps: rounding is monotonic, so clamp-then-quantize equals
// quantize-then-clamp exactly).
Expected<ir::TensorId> Output(Context& c);

// The output clamp [act_min, act_max] the tensor's quantization allows (qmin..qmax).
std::pair<int64_t, int64_t> FullRange(const ir::Tensor& y);
// TFLite Micro's CalculateActivationRangeQuantized bound: zp + (int)round(f / scale), float.
int64_t QuantizeBound(double f, const ir::Tensor& y);

// If `y`'s quantization is not `want`, returns a new intermediate int8 tensor with `want`
// for the op to write and queues a requantize from it to y after the op (call Flush after
// pushing the op). Otherwise returns y.
ir::TensorId Through(Context& c, ir::TensorId y, const ir::QuantParams& want,
                     std::vector<ir::Op>& after);

// Builds the int8 op(s) for the float op c.op() and appends them to c.out.
Status FoldOne(Context& c);

}  // namespace tinyforge::passes::fold
