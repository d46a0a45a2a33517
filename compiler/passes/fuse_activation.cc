// fuse-activation: a requantize that only clamps (same scale and zero point in and out:
// what fold-qdq makes of relu, relu6, hardtanh and clamp) folds into the act_min/act_max of
// the op producing its input, when nothing else reads that input. The producer then writes
// the clamp's output tensor (its name stays). TFLite Micro kernels apply the range as the
// last step of every op that has one, so the result is bit-identical.
//
// Likewise any requantize after a table lookup (`qlut`) whose output only it reads folds
// into the table: entry i becomes requantize(table[i]), computed by the requantize kernel
// itself (s8_requantize__ref with the op's parameters), so the result is bit-identical too.
// (fold-qdq writes sigmoid / tanh tables with TFLite's fixed output parameters and a
// requantize to the graph's, e.g. a squeeze-and-excitation gate.) A requantize left over
// 256 or more elements becomes a table too (RequantizeAsTable): bit-identical, and a lookup
// costs a fraction of the multiply and shifts.
#include <algorithm>

#include "kernels/lut/lut.h"
#include "kernels/quantize/quantize.h"
#include "passes/pass.h"
#include "passes/util.h"
#include "quant/op_params.h"

namespace tinyforge::passes {
namespace {

// The producer's act_min/act_max, or null for ops without a fused activation.
std::pair<int64_t*, int64_t*> ActRange(ir::Op& op) {
  return std::visit(
      [](auto& a) -> std::pair<int64_t*, int64_t*> {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, ir::QConv2dAttrs> ||
                      std::is_same_v<A, ir::QDwConv2dAttrs> || std::is_same_v<A, ir::QFcAttrs> ||
                      std::is_same_v<A, ir::QPool2dAttrs> || std::is_same_v<A, ir::ClampAttrs> ||
                      std::is_same_v<A, ir::QBmmAttrs>) {
          return {&a.act_min, &a.act_max};
        } else {
          return {nullptr, nullptr};
        }
      },
      op.attrs);
}

bool SameQuant(const ir::Tensor& a, const ir::Tensor& b) {
  return a.quant && b.quant && a.quant->scale == b.quant->scale &&
         a.quant->zero_point == b.quant->zero_point;
}

// `table` (256 entries, entry i for input (int8)i) passed through `requantize`'s own
// arithmetic (s8_requantize__ref with its parameters), as a constant with its output's
// quantization, named `name`.
Expected<ir::TensorId> RequantizedTable(ir::Graph& g, TensorNames& names,
                                        const ir::Op& requantize, std::vector<int8_t> table,
                                        const std::string& name) {
  TF_ASSIGN_OR_RETURN(s8_requantize_params p, quant::RequantizeParams(g, requantize));
  p.size = TF_LUT_ENTRIES;
  s8_requantize__ref(&p, table.data(), table.data());
  const auto quant = g.tensor(requantize.outputs[0]).quant;
  return AddConstant(g, names, name, ir::DType::kInt8, {TF_LUT_ENTRIES},
                     Bytes<int8_t>(std::span<const int8_t>(table)), quant);
}

// `lut` (a qlut) then `requantize`, as one qlut writing the requantize's output.
Status ComposeTable(ir::Graph& g, TensorNames& names, const ir::Op& requantize, ir::Op& lut) {
  const ir::Tensor& old = g.tensor(lut.inputs[1]);
  std::vector<int8_t> table = ConstantValues<int8_t>(old);
  if (table.size() != static_cast<size_t>(TF_LUT_ENTRIES)) {
    return Error("qlut '" + lut.name + "': its table must be a constant of " +
                 std::to_string(TF_LUT_ENTRIES) + " entries");
  }
  const std::string name = old.name;  // (AddConstant may move g.tensors)
  TF_ASSIGN_OR_RETURN(lut.inputs[1], RequantizedTable(g, names, requantize, std::move(table), name));
  lut.outputs[0] = requantize.outputs[0];
  return OkStatus();
}

// A requantize left over at least this many elements runs as a table, `qlut`: one lookup
// per element instead of a multiply and shifts (36-39 instructions per element with
// s8_requantize__ref), for 256 bytes of constants, no more than the tensor itself.
constexpr int64_t kTableMinElements = TF_LUT_ENTRIES;

// `requantize` as the qlut of its own output for every int8 input.
Status RequantizeAsTable(ir::Graph& g, TensorNames& names, ir::Op& op) {
  std::vector<int8_t> identity(TF_LUT_ENTRIES);
  for (int i = 0; i < TF_LUT_ENTRIES; ++i) identity[static_cast<size_t>(i)] = static_cast<int8_t>(i);
  TF_ASSIGN_OR_RETURN(ir::TensorId t,
                      RequantizedTable(g, names, op, std::move(identity), op.name + ".table"));
  op.type = ir::OpType::kQLut;
  op.attrs = ir::NoAttrs{};
  // (x, table): a requantize the .tflite importer wrote carries its multiplier and shift
  // as inputs 1 and 2, now folded into the table (dce drops them)
  op.inputs.resize(1);
  op.inputs.push_back(t);
  return OkStatus();
}

}  // namespace

// One pass in op order. A fusion never changes whether another clamp can fuse, except the
// clamp reading its output, which comes later: that one now sees the producer (its range
// narrowed) and fuses into it too when it can. So one pass fuses exactly what repeating
// until nothing changes would, in O(ops).
Status FuseActivation(ir::Graph& g, const PassOptions&) {
  std::vector<int> producers = ir::ComputeProducers(g);
  const auto consumers = ir::ComputeConsumers(g);
  std::vector<bool> is_output(g.tensors.size(), false);
  for (ir::TensorId t : g.outputs) is_output[static_cast<size_t>(t)] = true;
  std::vector<bool> fused(g.ops.size(), false);
  TensorNames names({&g.tensors});
  bool any = false;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const ir::Op& clamp = g.ops[i];
    if (clamp.type != ir::OpType::kRequantize) continue;
    const ir::TensorId x = clamp.inputs[0], y = clamp.outputs[0];
    const int p = producers[static_cast<size_t>(x)];
    if (p == ir::kNoProducer || consumers[static_cast<size_t>(x)].size() != 1 ||
        is_output[static_cast<size_t>(x)]) {
      continue;
    }
    ir::Op& producer = g.ops[static_cast<size_t>(p)];
    if (producer.type == ir::OpType::kQLut) {
      TF_RETURN_IF_ERROR(ComposeTable(g, names, clamp, producer));
      producers[static_cast<size_t>(y)] = p;
      fused[i] = any = true;
      continue;
    }
    if (!SameQuant(g.tensor(x), g.tensor(y))) continue;
    auto [lo, hi] = ActRange(producer);
    if (!lo) continue;
    const auto& c = clamp.attrs_as<ir::ClampAttrs>();
    const int64_t new_lo = std::max(*lo, c.act_min), new_hi = std::min(*hi, c.act_max);
    if (new_lo > new_hi) continue;  // an empty range: leave it to the kernels as it is
    *lo = new_lo, *hi = new_hi;
    producer.outputs[0] = y;
    producers[static_cast<size_t>(y)] = p;
    fused[i] = any = true;
  }
  for (size_t i = 0; i < g.ops.size(); ++i) {
    ir::Op& op = g.ops[i];
    if (op.type == ir::OpType::kRequantize && !fused[i] &&
        g.tensor(op.outputs[0]).num_elements() >= kTableMinElements) {
      TF_RETURN_IF_ERROR(RequantizeAsTable(g, names, op));
    }
  }
  if (any) {
    size_t kept = 0;
    for (size_t i = 0; i < g.ops.size(); ++i) {
      if (fused[i]) continue;
      if (kept != i) g.ops[kept] = std::move(g.ops[i]);  // (no self-move)
      ++kept;
    }
    g.ops.resize(kept);
  }
  ir::CompactTensors(g);
  return OkStatus();
}

}  // namespace tinyforge::passes
