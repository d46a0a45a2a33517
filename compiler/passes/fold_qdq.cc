// fold-qdq: the QDQ graph PT2E produces (float ops between dequantize and quantize, int8
// weights behind dequantize) becomes a graph of int8 ops (docs/lowered-ops.md) that compute
// the same quantized values. Each dequantize -> op -> quantize becomes one quantized op
// whose output is the quantize's output tensor (same name, so stages stay comparable);
// ReLU/hardtanh between an op and its quantize become requantize clamps (fuse-activation
// folds them into the producer). Only quantize at graph inputs and dequantize at graph
// outputs remain: the float edges. Layout stays NCHW (ops say layout=NCHW).
//
// What cannot be expressed exactly with TensorFlow Lite Micro's int8 kernels is rejected
// with a diagnostic naming the op (e.g. avg_pool2d counting padding), never approximated.
#include <algorithm>

#include "kernels/lut/lut.h"
#include "passes/fold_qdq_internal.h"
#include "passes/pass.h"
#include "passes/util.h"
#include "ir/verifier.h"
#include "quant/op_params.h"
#include "quant/quant_util.h"

namespace tinyforge::passes {
namespace fold {

using ir::OpType;
using ir::TensorId;

Error Context::Fail(const std::string& what) const { return OpError(g, index, what); }

std::string Context::UniqueOpName(const std::string& base) { return op_names.Unique(base); }

Expected<TensorId> Source(const Context& c, TensorId t, const char* role) {
  const ir::Tensor& desc = c.g.tensor(t);
  if (desc.dtype != ir::DType::kFloat32) return t;
  const int p = c.producer[static_cast<size_t>(t)];
  if (p != ir::kNoProducer && c.g.ops[static_cast<size_t>(p)].type == OpType::kDequantize) {
    return c.g.ops[static_cast<size_t>(p)].inputs[0];
  }
  return c.Fail(std::string(role) + " '" + desc.name +
                "' is float and not the output of a dequantize (is the graph quantized?)");
}

Expected<TensorId> ConstantSource(const Context& c, TensorId t, const char* role) {
  TF_ASSIGN_OR_RETURN(TensorId s, Source(c, t, role));
  if (!c.g.tensor(s).is_constant()) {
    return c.Fail(std::string(role) + " '" + c.g.tensor(t).name + "' is not a constant");
  }
  return s;
}

namespace {

bool IsActivation(OpType t) { return t == OpType::kRelu || t == OpType::kHardtanh; }

// The quantize op at the end of a chain of single-consumer activations from float `t`.
Expected<int> ChainQuantize(const Context& c, TensorId t) {
  for (int depth = 0; depth < 16; ++depth) {
    const auto& readers = c.consumers[static_cast<size_t>(t)];
    bool is_output = false;
    for (TensorId o : c.g.outputs) is_output = is_output || o == t;
    if (readers.size() != 1 || is_output) break;
    const ir::Op& r = c.g.ops[static_cast<size_t>(readers[0])];
    if (r.type == OpType::kQuantize && c.g.tensor(r.outputs[0]).dtype == ir::DType::kInt8) {
      return readers[0];
    }
    if (!IsActivation(r.type)) break;
    t = r.outputs[0];
  }
  return c.Fail("output '" + c.g.tensor(c.op().outputs[0]).name +
                "' must be read by exactly one quantize (optionally after relu/hardtanh): " +
                "fold-qdq lowers only what PT2E quantized");
}

}  // namespace

Expected<TensorId> Output(Context& c) {
  const TensorId o = c.op().outputs[0];
  TF_ASSIGN_OR_RETURN(int q, ChainQuantize(c, o));
  const ir::Op& quantize = c.g.ops[static_cast<size_t>(q)];
  if (quantize.inputs[0] == o) {
    c.absorbed[static_cast<size_t>(q)] = true;
    return quantize.outputs[0];
  }
  ir::Tensor& t = c.g.tensor(o);  // retyped: the activations after it become clamps
  t.dtype = ir::DType::kInt8;
  t.quant = c.g.tensor(quantize.outputs[0]).quant;
  return o;
}

std::pair<int64_t, int64_t> FullRange(const ir::Tensor& y) {
  return {std::max<int64_t>(-128, y.quant->qmin), std::min<int64_t>(127, y.quant->qmax)};
}

int64_t QuantizeBound(double f, const ir::Tensor& y) {
  const float scale = static_cast<float>(y.quant->scale[0]);
  // A clamp with one bound is a hardtanh whose other bound is -+FLT_MAX (aten_ops._clamp):
  // saturate far outside int8 instead of converting an out-of-range float (undefined).
  const float q = quant::RoundHalfAway(static_cast<float>(f) / scale);
  constexpr float kFar = 1e9f;
  return y.quant->zero_point[0] + static_cast<int64_t>(std::clamp(q, -kFar, kFar));
}

TensorId Through(Context& c, TensorId y, const ir::QuantParams& want, std::vector<ir::Op>& after) {
  const ir::Tensor& t = c.g.tensor(y);
  if (t.quant && t.quant->scale == want.scale && t.quant->zero_point == want.zero_point) return y;
  ir::Tensor mid = t;
  mid.quant = want;
  mid.name = c.tensor_names.Unique(t.name + ".pre");
  const TensorId m = c.g.AddTensor(std::move(mid));
  const auto [lo, hi] = FullRange(c.g.tensor(y));
  ir::ClampAttrs clamp{lo, hi};
  after.push_back(ir::MakeOp(OpType::kRequantize, c.UniqueOpName(c.op().name + ".requantize"),
                             {m}, {y}, clamp));
  after.back().source = c.op().source;
  return m;
}

}  // namespace fold

std::string FloatFallbackReason(const ir::Op& op) {
  if (op.type == ir::OpType::kCumsum) return "cumsum has no int8 lowering";
  const ir::FloatFn fn = op.attrs_as<ir::FloatFnAttrs>().fn;
  const std::string name(ir::FloatFnName(fn));
  switch (fn) {  // the functions the front ends also lower to int8 ops
    case ir::FloatFn::kAdd:
    case ir::FloatFn::kSub:
    case ir::FloatFn::kMul:
    case ir::FloatFn::kMaximum:
    case ir::FloatFn::kMinimum:
    case ir::FloatFn::kSigmoid:
    case ir::FloatFn::kTanh:
      return name + " kept in float32 (keep_float, or a float op of the .tflite)";
    default:
      return name + " has no int8 lowering";
  }
}

namespace {

// A float fallback chain of one int8 input, dequantize -> unary (one or more) -> quantize,
// is a function of 256 values: one `qlut` whose entry i is what the chain's own kernels
// (s8_dequantize__ref, f32_unary__ref, s8_quantize__ref, with the ops' parameters:
// quant::DequantQuantTable) compute for the input (int8)i, so the program's results are bit-identical to running the chain,
// at a lookup per element instead of the float functions (thousands of instructions per
// element on a core without a double-precision FPU). The quantize becomes the qlut; the
// unary ops go, and so does the dequantize once no other op reads it (dead code; each
// chain from a shared dequantize is a table of its own).
Status FloatChainsAsTables(ir::Graph& g) {
  using ir::OpType;
  using ir::TensorId;
  const std::vector<int> producers = ir::ComputeProducers(g);
  const auto consumers = ir::ComputeConsumers(g);
  std::vector<bool> is_output(g.tensors.size(), false);
  for (TensorId t : g.outputs) is_output[static_cast<size_t>(t)] = true;
  TensorNames names({&g.tensors});
  bool any = false;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (g.ops[i].type != OpType::kQuantize) continue;
    // Walk back through unary ops whose float output only the next op reads.
    std::vector<size_t> chain;  // the unary ops, last first
    TensorId t = g.ops[i].inputs[0];
    int p = producers[static_cast<size_t>(t)];
    while (p != ir::kNoProducer && g.ops[static_cast<size_t>(p)].type == OpType::kUnary &&
           consumers[static_cast<size_t>(t)].size() == 1 && !is_output[static_cast<size_t>(t)]) {
      chain.push_back(static_cast<size_t>(p));
      t = g.ops[static_cast<size_t>(p)].inputs[0];
      p = producers[static_cast<size_t>(t)];
    }
    if (chain.empty() || p == ir::kNoProducer ||
        g.ops[static_cast<size_t>(p)].type != OpType::kDequantize) {
      continue;
    }
    const ir::Op& dq = g.ops[static_cast<size_t>(p)];
    const ir::Tensor& x = g.tensor(dq.inputs[0]);
    const ir::Tensor& y = g.tensor(g.ops[i].outputs[0]);
    if (x.dtype != ir::DType::kInt8 || !x.quant || x.quant->per_channel() || !y.quant ||
        y.quant->per_channel()) {
      continue;
    }
    std::vector<int32_t> fns;  // in order: the chain was walked from its end
    for (size_t k = chain.size(); k-- > 0;) {
      fns.push_back(static_cast<int32_t>(g.ops[chain[k]].attrs_as<ir::FloatFnAttrs>().fn));
    }
    TF_ASSIGN_OR_RETURN(const quant::LutTable table,
                        quant::DequantQuantTable(quant::TensorQuantOf(x),
                                                 quant::TensorQuantOf(y), fns));
    const std::string name = g.ops[i].name + ".table";
    const auto quant = y.quant;
    const TensorId x_id = dq.inputs[0];
    const TensorId tab = AddConstant(g, names, name, ir::DType::kInt8, {TF_LUT_ENTRIES},
                                     Bytes<int8_t>(std::span<const int8_t>(table)), quant);
    ir::Op& op = g.ops[i];
    op.type = OpType::kQLut;
    op.attrs = ir::NoAttrs{};
    op.inputs = {x_id, tab};
    any = true;
  }
  if (any) RemoveDeadCode(g);  // the chains' unary ops and dequantize ops
  return OkStatus();
}

}  // namespace

// --no-float: one error listing every float fallback op left.
Status RefuseFloatOps(const ir::Graph& g) {
  std::string list;
  int n = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (!ir::IsFloatFallbackOp(g.ops[i].type)) continue;
    const std::string& src = g.ops[i].source;
    list += "\n  " + ir::OpLabel(g, i) + (src.empty() ? "" : " at " + src) + ": " +
            FloatFallbackReason(g.ops[i]);
    ++n;
  }
  if (n == 0) return OkStatus();
  return Error::Unsupported(std::to_string(n) + " op(s) would run in float32 and " +
                            "--no-float forbids it (drop --no-float for a mixed " +
                            "int8/float program):" + list);
}

Status FoldQdq(ir::Graph& g, const PassOptions& options) {
  if (g.kind == ir::GraphKind::kFloat) {
    return Error("graph '" + g.name + "' is a float graph: export it with calibration data " +
                 "(tinyforge.export(..., calibration=...)) to quantize it first");
  }
  if (g.kind != ir::GraphKind::kInt8) {  // (kInt8: already lowered, a .tflite or float graph)
    fold::Context c{g, ir::ComputeProducers(g), ir::ComputeConsumers(g),
                    std::vector<bool>(g.ops.size(), false), {}, 0};
    for (c.index = 0; c.index < g.ops.size(); ++c.index) {
      if (c.absorbed[c.index]) continue;
      TF_RETURN_IF_ERROR(fold::FoldOne(c));
    }
    g.ops = std::move(c.out);
    g.kind = ir::GraphKind::kInt8;
    RemoveDeadCode(g);  // the dequantize ops whose readers were all folded
  }
  TF_RETURN_IF_ERROR(FloatChainsAsTables(g));
  return options.allow_float ? OkStatus() : RefuseFloatOps(g);
}

}  // namespace tinyforge::passes
