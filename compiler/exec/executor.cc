#include "exec/executor.h"

#include <algorithm>
#include <new>
#include <string>

#include "exec/ref_ops.h"
#include "exec/run_lowered.h"
#include "ir/unary_fn.h"
#include "ir/verifier.h"
#include "support/text.h"

namespace tinyforge::exec {
namespace {

using ir::OpType;

// Runs one op: resolves its inputs to values, allocates its output with the declared shape
// and dtype, stores it. Every op type has exactly one output (ir/op_types.def). Pointers
// into `values` stay valid: it is sized once and never reallocated. Lowered ops (and the
// edge quantize/dequantize of an int8 graph) run on the int8 kernels (exec/run_lowered.h).
Status RunOp(const ir::Graph& g, const ir::Op& op, std::vector<std::optional<HostTensor>>& values) {
  std::vector<const HostTensor*> in;
  for (ir::TensorId t : op.inputs) in.push_back(&*values[static_cast<size_t>(t)]);
  const ir::Tensor& out_desc = g.tensor(op.outputs[0]);
  HostTensor y(out_desc.dtype, out_desc.shape);
  const HostTensor* bias = in.size() > 2 ? in[2] : nullptr;
  const bool int8_edge = g.kind == ir::GraphKind::kInt8 &&
                         (op.type == OpType::kQuantize || op.type == OpType::kDequantize);
  // A lowered float model's ops of the float block run on the device's kernels too (the
  // data movement as bytes, argmax and the float kernels' ops; decision 68).
  const bool float_model_op =
      g.kind == ir::GraphKind::kInt8 &&
      (ir::IsFloatModelOp(op.type) ||
       ((op.type == OpType::kArgMax || op.type == OpType::kGather ||
         op.type == OpType::kTranspose || op.type == OpType::kSlice ||
         op.type == OpType::kResize) &&
        in[0]->dtype() == ir::DType::kFloat32));
  if (op.type > OpType::kDequantize || int8_edge || ir::IsFloatFallbackOp(op.type) ||
      float_model_op) {
    TF_RETURN_IF_ERROR(RunLoweredOp(g, op, in, y));
    values[static_cast<size_t>(op.outputs[0])] = std::move(y);
    return OkStatus();
  }
  if (ir::IsUnaryFn(op.type)) {
    UnaryFn(op.type, op.attrs, *in[0], y);
    values[static_cast<size_t>(op.outputs[0])] = std::move(y);
    return OkStatus();
  }
  switch (op.type) {
    case OpType::kConv2d:
      Conv2d(op.attrs_as<ir::Conv2dAttrs>(), *in[0], *in[1], bias, y);
      break;
    case OpType::kLinear:
      Linear(*in[0], *in[1], bias, y);
      break;
    case OpType::kRelu:
      Relu(*in[0], y);
      break;
    case OpType::kHardtanh:
      Hardtanh(op.attrs_as<ir::HardtanhAttrs>(), *in[0], y);
      break;
    case OpType::kMaxPool2d:
      MaxPool2d(op.attrs_as<ir::MaxPool2dAttrs>(), *in[0], y);
      break;
    case OpType::kAvgPool2d:
      AvgPool2d(op.attrs_as<ir::AvgPool2dAttrs>(), *in[0], y);
      break;
    case OpType::kMean:
      Mean(op.attrs_as<ir::MeanAttrs>(), *in[0], y);
      break;
    case OpType::kSum:
      Sum(op.attrs_as<ir::MeanAttrs>(), *in[0], y);
      break;
    case OpType::kAmax:
      Amax(op.attrs_as<ir::MeanAttrs>(), *in[0], y);
      break;
    case OpType::kPad:
      Pad(op.attrs_as<ir::PadAttrs>(), *in[0], y);
      break;
    case OpType::kReshape:
      Reshape(*in[0], y);
      break;
    case OpType::kMatmul:
      Matmul(*in[0], *in[1], y);
      break;
    case OpType::kAdd:
      Binary(BinaryOp::kAdd, *in[0], *in[1], y);
      break;
    case OpType::kSub:
      Binary(BinaryOp::kSub, *in[0], *in[1], y);
      break;
    case OpType::kMul:
      Binary(BinaryOp::kMul, *in[0], *in[1], y);
      break;
    case OpType::kPrelu: {  // slopes [C] along dim 1: broadcast as [1, C, 1, ...]
      ir::Shape s(in[0]->shape().size(), 1);
      s[1] = in[1]->shape()[0];
      HostTensor w(ir::DType::kFloat32, s);
      std::copy(in[1]->f32().begin(), in[1]->f32().end(), w.f32().begin());
      Binary(BinaryOp::kPrelu, *in[0], w, y);
      break;
    }
    case OpType::kMaximum:
      Binary(BinaryOp::kMaximum, *in[0], *in[1], y);
      break;
    case OpType::kMinimum:
      Binary(BinaryOp::kMinimum, *in[0], *in[1], y);
      break;
    case OpType::kCat:
      Cat(op.attrs_as<ir::CatAttrs>(), in, y);
      break;
    case OpType::kTranspose:
      Transpose(op.attrs_as<ir::TransposeAttrs>().perm, *in[0], y);
      break;
    case OpType::kSlice:
      Slice(op.attrs_as<ir::SliceAttrs>(), *in[0], y);
      break;
    case OpType::kResize:  // int8 (a lowered graph): the kernel's integer algorithm
      if (in[0]->dtype() != ir::DType::kFloat32) {
        TF_RETURN_IF_ERROR(RunLoweredOp(g, op, in, y));
        break;
      }
      Resize(op.attrs_as<ir::ResizeAttrs>(), *in[0], y);
      break;
    case OpType::kGather:  // int8 (a lowered graph): the kernel
      if (in[0]->dtype() != ir::DType::kFloat32) {
        TF_RETURN_IF_ERROR(RunLoweredOp(g, op, in, y));
        break;
      }
      TF_RETURN_IF_ERROR(Gather(op.attrs_as<ir::GatherAttrs>(), *in[0], *in[1], y));
      break;
    case OpType::kArgMax:  // int8 (a lowered graph): the kernel
      if (in[0]->dtype() != ir::DType::kFloat32) {
        TF_RETURN_IF_ERROR(RunLoweredOp(g, op, in, y));
        break;
      }
      ArgMax(op.attrs_as<ir::ArgMaxAttrs>(), *in[0], y);
      break;
    case OpType::kSoftmax:
      Softmax(op.attrs_as<ir::SoftmaxAttrs>(), *in[0], y);
      break;
    case OpType::kLayerNorm:
      LayerNorm(op.attrs_as<ir::LayerNormAttrs>(), *in[0], in.size() > 1 ? in[1] : nullptr,
                in.size() > 2 ? in[2] : nullptr, y);
      break;
    case OpType::kQuantize:
      Quantize(*out_desc.quant, *in[0], y);
      break;
    case OpType::kDequantize:
      Dequantize(*g.tensor(op.inputs[0]).quant, *in[0], y);
      break;
    default:  // the lowered ops, handled above
      break;
  }
  values[static_cast<size_t>(op.outputs[0])] = std::move(y);
  return OkStatus();
}

}  // namespace

Status CheckInputs(const ir::Graph& g, std::span<const HostTensor> inputs) {
  if (inputs.size() != g.inputs.size()) {
    return Error("the graph has " + std::to_string(g.inputs.size()) + " input(s), got " +
                 std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Tensor& want = g.tensor(g.inputs[i]);
    const std::string label = "input " + std::to_string(i) + " ('" + want.name + "')";
    if (inputs[i].dtype() != want.dtype) {
      return Error(label + ": dtype " + std::string(ir::DTypeName(inputs[i].dtype())) +
                   " does not match the graph input's " + std::string(ir::DTypeName(want.dtype)));
    }
    if (inputs[i].shape() != want.shape) {
      return Error(label + ": shape " + FormatInts(inputs[i].shape()) +
                   " does not match the graph input's " + FormatInts(want.shape));
    }
    if (inputs[i].num_elements() != want.num_elements()) {
      return Error(label + ": holds " + std::to_string(inputs[i].num_elements()) + " elements");
    }
  }
  return OkStatus();
}

Expected<RunResult> Run(const ir::Graph& g, std::span<const HostTensor> inputs,
                        const RunOptions& options) {
  TF_RETURN_IF_ERROR(ir::Verify(g));
  TF_RETURN_IF_ERROR(CheckInputs(g, inputs));
  const size_t n = g.tensors.size();
  // Last op reading each tensor, so intermediates can be freed early; graph outputs are
  // never freed.
  std::vector<int> last_use(n, -1);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (ir::TensorId t : g.ops[i].inputs) last_use[static_cast<size_t>(t)] = static_cast<int>(i);
  }
  for (ir::TensorId t : g.outputs)
    last_use[static_cast<size_t>(t)] = static_cast<int>(g.ops.size());

  std::vector<std::optional<HostTensor>> values(n);
  size_t op_index = 0;
  try {
    for (size_t i = 0; i < inputs.size(); ++i) values[static_cast<size_t>(g.inputs[i])] = inputs[i];
    for (size_t t = 0; t < n; ++t) {
      const ir::Tensor& desc = g.tensors[t];
      if (!desc.is_constant()) continue;
      values[t] = HostTensor::FromBytes(desc.dtype, desc.shape, *desc.data).value();
    }
    for (; op_index < g.ops.size(); ++op_index) {
      for (ir::TensorId t : g.ops[op_index].outputs) {
        const int64_t bytes = g.tensor(t).num_bytes();
        if (bytes > options.max_tensor_bytes) {
          return Error(ir::OpLabel(g, op_index) + ": output '" + g.tensor(t).name + "' of " +
                       std::to_string(bytes) + " bytes exceeds the executor's limit of " +
                       std::to_string(options.max_tensor_bytes));
        }
      }
      Status ran = RunOp(g, g.ops[op_index], values);
      TF_RETURN_IF_ERROR_PREFIX(ran, ir::OpLabel(g, op_index));
      if (options.keep_all) continue;
      for (ir::TensorId t : g.ops[op_index].inputs) {
        if (last_use[static_cast<size_t>(t)] == static_cast<int>(op_index)) {
          values[static_cast<size_t>(t)].reset();
        }
      }
    }
  } catch (const std::bad_alloc&) {
    const std::string where =
        op_index < g.ops.size() ? ir::OpLabel(g, op_index) : std::string("loading constants");
    return Error(where + ": out of memory");
  }
  RunResult result;
  for (ir::TensorId t : g.outputs) result.outputs.push_back(*values[static_cast<size_t>(t)]);
  if (options.keep_all) result.tensors = std::move(values);
  return result;
}

Expected<HostTensor> RunAlone(const ir::Graph& g, const ir::Op& op,
                              std::span<const HostTensor> values) {
  ir::Graph mini;
  mini.name = g.name;
  mini.kind = g.kind;
  mini.layout = g.layout;
  mini.io_layout = g.io_layout;
  mini.rounding = g.rounding;
  ir::Op copy = op;
  std::vector<HostTensor> feed;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    // A tensor the op reads more than once (a cat of copies) is one input of the mini graph.
    const size_t first = static_cast<size_t>(
        std::find(op.inputs.begin(), op.inputs.end(), op.inputs[i]) - op.inputs.begin());
    if (first < i) {
      copy.inputs[i] = copy.inputs[first];
      continue;
    }
    const ir::Tensor& t = g.tensor(op.inputs[i]);
    const ir::TensorId id = mini.AddTensor(t);
    if (!t.is_constant()) {
      mini.inputs.push_back(id);
      feed.push_back(values[i]);
    }
    copy.inputs[i] = id;
  }
  ir::Tensor out = g.tensor(op.outputs[0]);
  out.data.reset();
  copy.outputs = {mini.AddTensor(std::move(out))};
  mini.outputs = copy.outputs;
  mini.AddOp(std::move(copy));
  TF_ASSIGN_OR_RETURN(RunResult r, Run(mini, feed));
  return std::move(r.outputs[0]);
}

}  // namespace tinyforge::exec
