#include "emit/encode_ops.h"

#include <algorithm>
#include <memory>
#include <cstring>

#include "emit/program_writer.h"
#include "quant/op_params.h"
#include "tinyforge/in_place.h"

namespace tinyforge::emit::detail {
namespace {

namespace fmt = rt::fmt;
using ir::OpType;

std::string OpLabel(const ir::Graph& g, size_t k) {
  return "op '" + g.ops[k].name + "' (#" + std::to_string(k) + ")";
}

template <class T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

class Encoder {
 public:
  Encoder(const ir::Graph& g, Encoded& e) : g_(g), e_(e), const_of_(g.tensors.size(), -1) {}

  // --optimize size: kernels' paths linked on demand are the smallest that run each call.
  bool optimize_size = false;

  const ir::Graph& graph() const { return g_; }

  int Act(ir::TensorId t) const { return e_.plan_tensor[static_cast<size_t>(t)]; }
  Operand ActOp(ir::TensorId t) const { return {Operand::kActivation, Act(t)}; }
  // An op input that may be an activation or a constant.
  Operand InputOp(ir::TensorId t) { return g_.tensor(t).is_constant() ? ConstOf(t) : ActOp(t); }

  // A constant input of the op (deduplicated by tensor).
  Operand ConstOf(ir::TensorId t) {
    int& c = const_of_[static_cast<size_t>(t)];
    if (c >= 0) return {Operand::kConstant, c};
    const ir::Tensor& tensor = g_.tensor(t);
    e_.constants.push_back({tensor.name, ProgramDType(tensor.dtype), *tensor.data, t});
    c = static_cast<int>(e_.constants.size() - 1);
    return {Operand::kConstant, c};
  }
  Operand NewConst(std::string name, const std::vector<int32_t>& v) {
    e_.constants.push_back({std::move(name), fmt::kInt32, Bytes(v), -1});
    return {Operand::kConstant, static_cast<int>(e_.constants.size() - 1)};
  }

 private:
  const ir::Graph& g_;
  Encoded& e_;
  std::vector<int> const_of_;  // per IR tensor: its index in e_.constants, or -1
};

int64_t Elements(const ir::Graph& g, ir::TensorId t) { return g.tensor(t).num_elements(); }

}  // namespace

uint8_t ProgramDType(ir::DType d) {
  switch (d) {
    case ir::DType::kInt8:
      return fmt::kInt8;
    case ir::DType::kInt32:
      return fmt::kInt32;
    case ir::DType::kFloat32:
      return fmt::kFloat32;
  }
  return 0;
}

const rt::KernelInfo* PickKernel(rt::OpKind op, const std::string& isa_class) {
  std::vector<rt::Isa> order;
  if (isa_class == "mve")
    order = {rt::Isa::kMve, rt::Isa::kDsp, rt::Isa::kScalar, rt::Isa::kRef};
  else if (isa_class == "dsp")
    order = {rt::Isa::kDsp, rt::Isa::kScalar, rt::Isa::kRef};
  else if (isa_class == "scalar")
    order = {rt::Isa::kScalar, rt::Isa::kRef};
  else
    order = {rt::Isa::kRef};
  for (rt::Isa isa : order) {
    for (const rt::KernelInfo& k : rt::kKernels) {
      if (k.op == op && k.isa == isa) return &k;
    }
  }
  return nullptr;
}

// Fewest output pixels per call of a streamed fast (not __ref) kernel by default: measured
// on the an547 (docs/decisions.md 54).
constexpr int32_t kFastStreamPixels = 16;

// Rows of `pixels_per_row` pixels that make at least `pixels` pixels.
int32_t RowsFor(int32_t pixels, int32_t pixels_per_row) {
  return std::max(1, (pixels + pixels_per_row - 1) / std::max(pixels_per_row, 1));
}

// The kernel calls a streamed conv / depthwise may make (docs/decisions.md 54): the first
// and last unit of each block size the planner may choose for `rows` (plan::StreamBlockSizes
// from `least` rows),
// whose scratch the op's scratch buffer must hold and whose paths the firmware links.
// `p`: the parameters streamed (the op's, or its [H*W, 1] pixel image's); `bound`: the same
// with the quantization arrays bound (paths read them).
template <rt::OpKind kOp, class P, class AddPath>
void AddStreamCalls(const P& p, const P& bound, const rt::StreamGeometry& rows, int32_t least,
                    EncodedOp& eo, AddPath& add_path, bool optimize_size) {
  for (int32_t k : plan::StreamBlockSizes(rows.units, least)) {
    const rt::StreamGeometry g = rt::StreamBlocks(rows, k);
    for (int32_t u : {0, g.units - 1}) {
      eo.spec.scratch_bytes = std::max(
          eo.spec.scratch_bytes, rt::ScratchBytes<kOp>(eo.kernel->id, rt::StreamUnitParams(p, g, u)));
      rt::ForEachPath<kOp>(eo.kernel->id, rt::StreamUnitParams(bound, g, u), add_path,
                            optimize_size);
    }
  }
}

// What conv, depthwise and FC encode alike: parameters, the operand list (input, weights,
// bias, multiplier, shift, output, scratch slot) and the kernel's scratch need (the larger
// of whole-tensor and row-by-row calls, which streamed conv/depthwise make).
template <rt::OpKind kOp, class KP>
void EncodeWeighted(Encoder& enc, const ir::Op& op, const KP& kp, bool stream,
                    int32_t stream_pixels, EncodedOp& eo) {
  const auto& p = kp.params;
  eo.params = EncodeParams(p);
  const Operand weights = enc.ConstOf(op.inputs[1]);  // (constants in operand order)
  Operand bias;
  if constexpr (kOp == rt::OpKind::kConv) {
    if (p.lean) {  // the bias, then the kernel's effective bias and table (conv.h)
      const ir::Graph& g = enc.graph();
      const std::vector<uint8_t>& bb = *g.tensor(op.inputs[2]).data;
      const auto* w = reinterpret_cast<const int8_t*>(g.tensor(op.inputs[1]).data->data());
      const auto bound = kp.Bind();
      const int kind = s8_conv_mve_table_kind(bound);
      const int32_t n = s8_conv_mve_lean_words(bound);
      std::vector<int32_t> words(bb.size() / 4 + static_cast<size_t>(n));
      std::memcpy(words.data(), bb.data(), bb.size());
      int32_t* lean = words.data() + p.out_c;
      for (int32_t i = 0; i < n; ++i) {
        lean[i] = s8_conv_mve_lean_word(bound, kind, w, words.data(), lean, i);
      }
      bias = enc.NewConst(op.name + ".bias_lean", words);
      eo.lean_bytes = int64_t{n} * 4;
    }
  }
  if (bias.kind == Operand::kNone) bias = enc.ConstOf(op.inputs[2]);
  eo.operands = {enc.ActOp(op.inputs[0]),
                 weights,
                 bias,
                 enc.NewConst(op.name + ".multiplier", kp.multiplier),
                 enc.NewConst(op.name + ".shift", kp.shift),
                 enc.ActOp(op.outputs[0]),
                 {}};
  eo.spec.scratch_bytes = rt::ScratchBytes<kOp>(eo.kernel->id, p);
  // The kernel's paths linked on demand that the call takes (kernels/common/paths.h), with
  // the quantization arrays bound.
  const auto bound = kp.Bind();
  auto add_path = [&eo](const char* symbol) {
    if (std::find(eo.paths.begin(), eo.paths.end(), symbol) == eo.paths.end())
      eo.paths.push_back(symbol);
  };
  rt::ForEachPath<kOp>(eo.kernel->id, bound, add_path, enc.optimize_size);
  if constexpr (kOp == rt::OpKind::kConv || kOp == rt::OpKind::kDwconv) {
    auto row = p;
    row.out_h = 1;
    auto bound_row = bound;
    bound_row.out_h = 1;
    rt::ForEachPath<kOp>(eo.kernel->id, bound_row, add_path, enc.optimize_size);
    eo.spec.scratch_bytes =
        std::max(eo.spec.scratch_bytes, rt::ScratchBytes<kOp>(eo.kernel->id, row));
    if (stream && p.batches == 1) {  // in place, by output rows
      eo.spec.in_place = plan::InPlace::kStream;
      eo.spec.stream_options = {rt::ConvRows(p)};
      eo.spec.stream_min_rows = {RowsFor(stream_pixels, p.out_w)};
      AddStreamCalls<kOp>(p, bound, rt::ConvRows(p), eo.spec.stream_min_rows[0], eo, add_path,
                          enc.optimize_size);
      auto kps = std::make_shared<KP>(kp);
      const bool size = enc.optimize_size;
      eo.row_calls = [kps, size](EncodedOp& self, int32_t k) -> int64_t {
        const auto& pp = kps->params;
        const auto bb = kps->Bind();
        auto add = [&self](const char* symbol) {
          if (std::find(self.paths.begin(), self.paths.end(), symbol) == self.paths.end())
            self.paths.push_back(symbol);
        };
        const rt::StreamGeometry g = rt::StreamBlocks(rt::ConvRows(pp), k);
        int64_t scratch = 0;
        for (int32_t u : {0, g.units - 1}) {
          scratch = std::max(scratch,
                             rt::ScratchBytes<kOp>(self.kernel->id, rt::StreamUnitParams(pp, g, u)));
          rt::ForEachPath<kOp>(self.kernel->id, rt::StreamUnitParams(bb, g, u), add, size);
        }
        return scratch;
      };
    }
  }
  if constexpr (kOp == rt::OpKind::kConv || kOp == rt::OpKind::kDwconv) {
    // Exactly in place in one call where the kernel allows it (in_place.h): with streaming
    // on, as the planner's first choice beside the streams.
    bool exact = false;
    if constexpr (kOp == rt::OpKind::kConv) {
      // Not with `--optimize size`: its small driver (2 x 2 blocks) would run in place from
      // 4-pixel copies, reloading every weight per tile (kws: 1.29 M instructions against
      // 1.08 M streamed; docs/decisions.md 87).
      exact = rt::ConvInPlace(eo.kernel->id, p) && !enc.optimize_size;
    } else {
      exact = rt::DwconvInPlace(eo.kernel->id, p);
    }
    if (exact) {
      if (eo.spec.in_place == plan::InPlace::kStream) {
        eo.spec.alias_whole = true;
      } else if (stream) {
        eo.spec.in_place = plan::InPlace::kAlias;
      }
    }
  }
}

std::map<size_t, const rt::KernelInfo*> SizeKernels(const ir::Graph& g, const Encoded& e) {
  int64_t total_macs = 0;
  for (const EncodedOp& op : e.ops) total_macs += op.spec.macs;
  // Work per operator kind (a family's fast kernel leaves the image only when none of its
  // ops keeps it), over the ops with a fast kernel: MACs, or 4 per byte of activations read
  // where that is more (elementwise ops, pools).
  std::map<rt::OpKind, int64_t> work;
  for (const EncodedOp& op : e.ops) {
    if (op.kernel->isa == rt::Isa::kRef) continue;
    int64_t bytes = 0;  // activations read
    for (ir::TensorId t : g.ops[op.ir_op].inputs) {
      if (t >= 0 && !g.tensor(t).is_constant()) bytes += g.tensor(t).num_bytes();
    }
    work[op.kernel->op] += std::max(op.spec.macs, 4 * bytes);
  }
  // The lightest kinds first, while their work adds up to at most 1/64 of the program's
  // MACs. Measured __ref costs on the M55: ~30 instructions per MAC, 6 per byte read for
  // avgpool, 66 for add (hence 4 units a byte): about half an instruction more per MAC of
  // the model at most, where the fast build takes 0.2 to 0.4.
  std::vector<std::pair<int64_t, rt::OpKind>> kinds;
  for (const auto& [kind, w] : work) kinds.push_back({w, kind});
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::map<size_t, const rt::KernelInfo*> out;
  int64_t sum = 0;
  for (const auto& [w, kind] : kinds) {
    sum += w;
    if (sum * 64 > total_macs) break;
    const rt::KernelInfo* ref = PickKernel(kind, "ref");
    for (const EncodedOp& op : e.ops) {
      if (op.kernel->op == kind && ref != nullptr && op.kernel != ref) out[op.ir_op] = ref;
    }
  }
  return out;
}

int32_t StreamMinPixels(rt::Isa isa) { return isa == rt::Isa::kRef ? 1 : kFastStreamPixels; }

int32_t StreamBudgetPixels(const rt::KernelInfo& k) {
  struct Entry {
    const char* symbol;
    int32_t pixels;
  };
  static constexpr Entry kListed[] = {
#define TF_KERNEL_ALL(op, symbol, isa, scratch)
#define TF_KERNEL_STREAM_ALL(symbol, pixels) {#symbol, pixels},
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_STREAM_ALL
#undef TF_KERNEL_ALL
  };
  for (const Entry& e : kListed) {
    if (std::strcmp(e.symbol, k.symbol) == 0) return e.pixels;
  }
  return 0;
}

std::vector<const rt::KernelInfo*> SameIsaVariants(const rt::KernelInfo& k) {
  std::vector<const rt::KernelInfo*> out;
  for (const rt::KernelInfo& v : rt::kKernels) {
    if (v.op == k.op && v.isa == k.isa && v.id != k.id) out.push_back(&v);
  }
  return out;
}

Expected<Encoded> EncodeOps(const ir::Graph& g, const std::string& isa_class, StreamMode mode,
                            int32_t stream_pixels,
                            const std::map<size_t, const rt::KernelInfo*>& kernels,
                            bool optimize_size, const std::set<size_t>& lean) {
  if (g.kind != ir::GraphKind::kInt8) {
    return Error("the graph is not lowered (kind " + std::string(ir::GraphKindName(g.kind)) +
                 "); compile lowers qdq graphs first");
  }
  Encoded e;
  // Activations: every non-constant tensor, reshape outputs sharing their input's buffer.
  std::vector<int> root(g.tensors.size(), -1);
  for (size_t t = 0; t < g.tensors.size(); ++t) root[t] = static_cast<int>(t);
  for (const ir::Op& op : g.ops) {
    if (op.type == OpType::kReshape)
      root[static_cast<size_t>(op.outputs[0])] = root[static_cast<size_t>(op.inputs[0])];
  }
  e.plan_tensor.assign(g.tensors.size(), -1);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].is_constant() || root[t] != static_cast<int>(t)) continue;
    e.plan_tensor[t] = static_cast<int>(e.tensors.size());
    e.tensors.push_back({g.tensors[t].name, g.tensors[t].num_bytes(), false, false, ""});
    e.tensor_dtype.push_back(ProgramDType(g.tensors[t].dtype));
  }
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (!g.tensors[t].is_constant()) e.plan_tensor[t] = e.plan_tensor[static_cast<size_t>(root[t])];
  }
  for (ir::TensorId t : g.inputs)
    e.tensors[static_cast<size_t>(e.plan_tensor[static_cast<size_t>(t)])].graph_input = true;
  for (ir::TensorId t : g.outputs)
    e.tensors[static_cast<size_t>(e.plan_tensor[static_cast<size_t>(t)])].graph_output = true;
  // A state input keeps its value between runs: live from before the first op until after
  // the last, so no other buffer ever takes its bytes (docs/memory-planning.md).
  for (const auto& pair : g.state) {
    const ir::TensorId t = g.inputs[static_cast<size_t>(pair.first)];
    e.tensors[static_cast<size_t>(e.plan_tensor[static_cast<size_t>(t)])].graph_output = true;
  }

  Encoder enc(g, e);
  enc.optimize_size = optimize_size;
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const ir::Op& op = g.ops[k];
    if (op.type == OpType::kReshape) continue;
    EncodedOp eo;
    eo.ir_op = k;
    eo.spec.name = op.name;
    auto kernel = [&](rt::OpKind kind) -> Status {
      const auto chosen = kernels.find(k);
      eo.kernel = chosen != kernels.end() && chosen->second->op == kind ? chosen->second
                                                                         : PickKernel(kind, isa_class);
      if (eo.kernel == nullptr) return Error::Unsupported(OpLabel(g, k) + ": no kernel for it");
      return OkStatus();
    };
    // Fewest output pixels per call when streamed (after kernel() picked the kernel); 0:
    // the op does not stream.
    auto pixels = [&]() -> int32_t {
      if (mode == StreamMode::kOff) return 0;
      if (stream_pixels > 0) return stream_pixels;
      return mode == StreamMode::kMinRam ? StreamMinPixels(eo.kernel->isa)
                                         : StreamBudgetPixels(*eo.kernel);
    };
    // The op's parameter record from a quant::*Params builder's result.
    auto params = [&](const auto& p) -> Status {
      TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
      eo.params = EncodeParams(*p);
      return OkStatus();
    };
    const ir::TensorId x = op.inputs.empty() ? -1 : op.inputs[0];
    const ir::TensorId y = op.outputs[0];
    switch (op.type) {
      case OpType::kQConv2d: {
        auto kp = quant::ConvParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(kp, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kConv));
        // Lean (tables built here, in the bias operand): s8_conv__mve's calls whose table
        // does not depend on their pixels, not with --optimize size (flash first).
        eo.lean_offered = eo.kernel->id == rt::KernelId("s8_conv__mve") && !optimize_size &&
                          op.inputs.size() > 2 && op.inputs[2] >= 0 &&
                          g.tensor(op.inputs[2]).is_constant() &&
                          s8_conv_mve_table_kind(kp->Bind()) != 0;
        eo.lean = eo.lean_offered && lean.count(k) > 0;
        kp->params.lean = eo.lean ? 1 : 0;
        EncodeWeighted<rt::OpKind::kConv>(enc, op, *kp, pixels() > 0, pixels(), eo);
        const s8_conv_params& p = kp->params;
        eo.spec.macs = Elements(g, y) * p.k_h * p.k_w * p.filter_in_c;
        if (pixels() > 0 && p.batches == 1 && p.k_h == 1 && p.k_w == 1 && p.stride_h == 1 && p.stride_w == 1 &&
            p.pad_top == 0 && p.pad_left == 0 && p.out_h == p.in_h && p.out_w == p.in_w &&
            p.in_w > 1) {
          s8_conv_params px = p;  // the image as [H*W, 1]: one unit per pixel
          px.in_h = px.out_h = p.in_h * p.in_w;
          px.in_w = px.out_w = 1;
          eo.pixel_params = EncodeParams(px);
          eo.spec.stream_options.push_back(rt::ConvRows(px));  // k_h 1: one input unit
          eo.spec.stream_min_rows.push_back(pixels());
          s8_conv_params bound_px = kp->Bind();
          bound_px.in_h = bound_px.out_h = px.in_h;
          bound_px.in_w = bound_px.out_w = 1;
          auto add_path = [&eo](const char* symbol) {
            if (std::find(eo.paths.begin(), eo.paths.end(), symbol) == eo.paths.end())
              eo.paths.push_back(symbol);
          };
          AddStreamCalls<rt::OpKind::kConv>(px, bound_px, rt::ConvRows(px), pixels(), eo,
                                            add_path, enc.optimize_size);
        }
        break;
      }
      case OpType::kQDwConv2d: {
        auto kp = quant::DwConvParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(kp, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kDwconv));
        // Lean: s8_dwconv__mve's plane path with chunks of 4 planes where it fills 8.
        eo.lean_offered = eo.kernel->id == rt::KernelId("s8_dwconv__mve") &&
                          s8_dwconv_mve_make_plan(kp->params).fast &&
                          s8_dwconv_mve_make_plan(kp->params).chunk == 8;
        eo.lean = eo.lean_offered && lean.count(k) > 0;
        kp->params.lean = eo.lean ? 1 : 0;
        EncodeWeighted<rt::OpKind::kDwconv>(enc, op, *kp, pixels() > 0, pixels(), eo);
        eo.spec.macs = Elements(g, y) * kp->params.k_h * kp->params.k_w;
        break;
      }
      case OpType::kQFc: {
        auto kp = quant::FcParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(kp, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kFc));
        EncodeWeighted<rt::OpKind::kFc>(enc, op, *kp, false, 0, eo);
        eo.spec.macs =
            int64_t{kp->params.batches} * kp->params.in_features * kp->params.out_features;
        break;
      }
      case OpType::kQBmm: {
        auto p = quant::BmmParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kBmm));
        eo.params = EncodeParams(*p);
        // Either operand may be a constant (a .tflite BATCH_MATMUL with a constant rhs).
        eo.operands = {enc.InputOp(op.inputs[0]), enc.InputOp(op.inputs[1]), enc.ActOp(y), {}};
        eo.spec.scratch_bytes = rt::ScratchBytes<rt::OpKind::kBmm>(eo.kernel->id, *p);
        eo.spec.macs = int64_t{p->batches} * p->rows * p->depth * p->cols;
        break;
      }
      case OpType::kQAvgPool2d:
      case OpType::kQMaxPool2d: {
        auto p = quant::PoolParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        const bool avg = op.type == OpType::kQAvgPool2d;
        TF_RETURN_IF_ERROR(kernel(avg ? rt::OpKind::kAvgpool : rt::OpKind::kMaxpool));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.ActOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, y) * p->filter_h * p->filter_w;
        if (pixels() > 0 && p->batches == 1) {
          eo.spec.in_place = plan::InPlace::kStream;
          eo.spec.stream_options = {rt::PoolRows(*p)};
          eo.spec.stream_min_rows = {RowsFor(pixels(), p->out_w)};
        }
        break;
      }
      case OpType::kQAdd:
      case OpType::kQSub:
      case OpType::kQSquaredDifference:
      case OpType::kQMaximum:
      case OpType::kQMinimum:
      case OpType::kQPrelu:
      case OpType::kQMul:
      case OpType::kBinary: {  // (the float fallback's, float32)
        if (op.type == OpType::kBinary) {
          TF_RETURN_IF_ERROR(kernel(rt::OpKind::kF32Binary));
          TF_RETURN_IF_ERROR(params(quant::F32BinaryParams(g, op)));
        } else if (op.type == OpType::kQAdd || op.type == OpType::kQSub) {
          TF_RETURN_IF_ERROR(
              kernel(op.type == OpType::kQAdd ? rt::OpKind::kAdd : rt::OpKind::kSub));
          auto p = quant::AddParams(g, op);
          TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
          quant::FindAddLinearForm(&*p, op.type == OpType::kQSub);
          eo.params = EncodeParams(*p);
        } else if (op.type == OpType::kQSquaredDifference) {
          TF_RETURN_IF_ERROR(kernel(rt::OpKind::kSquaredDifference));
          auto p = quant::SquaredDifferenceParams(g, op);
          TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
          eo.params = EncodeParams(*p);
        } else if (op.type == OpType::kQPrelu) {
          TF_RETURN_IF_ERROR(kernel(rt::OpKind::kPrelu));
          auto p = quant::PreluParams(g, op);
          TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
          eo.params = EncodeParams(*p);
        } else if (op.type == OpType::kQMul) {
          TF_RETURN_IF_ERROR(kernel(rt::OpKind::kMul));
          auto p = quant::MulParams(g, op);
          TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
          eo.params = EncodeParams(*p);
        } else {
          TF_RETURN_IF_ERROR(kernel(op.type == OpType::kQMaximum ? rt::OpKind::kMaximum
                                                                 : rt::OpKind::kMinimum));
          auto p = quant::MinMaxParams(g, op);
          TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
          eo.params = EncodeParams(*p);
        }
        // Either input may be a constant (Rescaling, BatchNorm on an input: x * c + d).
        eo.operands = {enc.InputOp(op.inputs[0]), enc.InputOp(op.inputs[1]), enc.ActOp(y)};
        eo.spec.macs = Elements(g, y);
        // The kernels allow exact in-place when the aliased input is not broadcast; only an
        // activation can share the output's bytes.
        auto full = [&](ir::TensorId t) {
          return !g.tensor(t).is_constant() && Elements(g, t) == Elements(g, y);
        };
        const bool a_full = full(op.inputs[0]);
        const bool b_full = full(op.inputs[1]);
        if (a_full || b_full) {
          eo.spec.in_place = plan::InPlace::kAlias;
          eo.spec.in_place_input = a_full ? 0 : 1;
        }
        // A residual block's add may end a pipe (tinyforge/pipe.h, docs/decisions.md 99), by
        // rows of its [1, H, W, C] output: two activations of its shape.
        const ir::Shape& ys = g.tensor(y).shape;
        if (op.type == OpType::kQAdd && mode != StreamMode::kOff && a_full && b_full &&
            op.inputs[0] != op.inputs[1] && ys.size() == 4 && ys[0] == 1 &&
            g.tensor(op.inputs[0]).shape == ys && g.tensor(op.inputs[1]).shape == ys &&
            ys[1] * ys[2] * ys[3] <= INT32_MAX) {
          eo.spec.stream_options = {rt::ElementwiseRows(static_cast<int32_t>(ys[1]),
                                                        static_cast<int32_t>(ys[2] * ys[3]))};
          eo.pipe_tail = true;
          eo.row_calls = [](EncodedOp&, int32_t) -> int64_t { return 0; };
        }
        break;
      }
      case OpType::kGather: {
        auto p = quant::GatherParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kGather));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.InputOp(x), enc.InputOp(op.inputs[1]), enc.ActOp(y)};
        eo.spec.macs = Elements(g, y);
        break;
      }
      case OpType::kArgMax: {
        if (g.tensor(x).dtype == ir::DType::kFloat32) {  // a float model's (decision 68)
          TF_RETURN_IF_ERROR(kernel(rt::OpKind::kF32Argmax));
          TF_RETURN_IF_ERROR(params(quant::F32ArgMaxParams(g, op)));
          eo.operands = {enc.ActOp(x), enc.ActOp(y)};
          eo.spec.macs = Elements(g, x);
          break;
        }
        auto p = quant::ArgMaxParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kArgmax));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.ActOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, x);
        break;
      }
      case OpType::kQMean:
      case OpType::kQSum: {
        auto perm = quant::ReductionPerm(g, op);
        TF_RETURN_IF_ERROR_PREFIX(perm, OpLabel(g, k));
        if (!perm->empty()) {
          return Error::Internal(OpLabel(g, k) + ": reduced dims not one run (layout pass)");
        }
        auto p = quant::MeanParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kMean));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.ActOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, x);
        // The variant's paths the call takes (mean.inc: 2..16 channels).
        rt::ForEachPath<rt::OpKind::kMean>(
            eo.kernel->id, *p,
            [&eo](const char* symbol) {
              if (std::find(eo.paths.begin(), eo.paths.end(), symbol) == eo.paths.end())
                eo.paths.push_back(symbol);
            },
            enc.optimize_size);
        break;
      }
      case OpType::kQReduceMax: {
        auto perm = quant::ReductionPerm(g, op);
        TF_RETURN_IF_ERROR_PREFIX(perm, OpLabel(g, k));
        if (!perm->empty()) {
          return Error::Internal(OpLabel(g, k) + ": reduced dims not one run (layout pass)");
        }
        auto p = quant::ReduceMaxParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kReduceMax));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.ActOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, x);
        break;
      }
      case OpType::kQSoftmax: {
        auto p = quant::SoftmaxParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kSoftmax));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.ActOp(x), enc.ActOp(y), {}};
        eo.spec.scratch_bytes = rt::ScratchBytes<rt::OpKind::kSoftmax>(eo.kernel->id, *p);
        eo.spec.macs = Elements(g, x);
        // The variant's paths the call takes (softmax.inc: the table, rows of 1 or 2).
        rt::ForEachPath<rt::OpKind::kSoftmax>(
            eo.kernel->id, *p,
            [&eo](const char* symbol) {
              if (std::find(eo.paths.begin(), eo.paths.end(), symbol) == eo.paths.end())
                eo.paths.push_back(symbol);
            },
            enc.optimize_size);
        break;
      }
      case OpType::kQLayerNorm: {
        auto p = quant::LayerNormParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kLayerNorm));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.ActOp(x), enc.ConstOf(op.inputs[1]), enc.ConstOf(op.inputs[2]),
                       enc.ActOp(y)};
        eo.spec.macs = Elements(g, x);
        eo.spec.in_place = plan::InPlace::kAlias;  // a row is read before any of it is written
        break;
      }
      case OpType::kQLstm: {
        auto p = quant::LstmParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kLstm));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.ActOp(x),
                       enc.ConstOf(op.inputs[1]),
                       enc.ConstOf(op.inputs[2]),
                       enc.ConstOf(op.inputs[3]),
                       enc.ActOp(y),
                       {}};
        eo.spec.scratch_bytes = rt::ScratchBytes<rt::OpKind::kLstm>(eo.kernel->id, *p);
        eo.spec.macs = int64_t{p->steps} * 4 * p->units * (p->in_features + p->units);
        break;
      }
      case OpType::kQLut: {
        auto p = quant::LutParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kLut));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.ActOp(x), enc.ConstOf(op.inputs[1]), enc.ActOp(y)};
        eo.spec.macs = Elements(g, x);
        eo.spec.in_place = plan::InPlace::kAlias;  // element i read before it is written
        break;
      }
      case OpType::kRequantize: {
        auto p = quant::RequantizeParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kRequantize));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.ActOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, x);
        break;
      }
      case OpType::kQConcat:
      case OpType::kCat: {  // (a float model's: bytes copied, decision 68)
        auto kp = quant::ConcatParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(kp, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kConcat));
        if (kp->inputs.size() > static_cast<size_t>(rt::abi::kMaxConcatInputs)) {
          return Error::Unsupported(OpLabel(g, k) + ": concatenation of more than " +
                       std::to_string(rt::abi::kMaxConcatInputs) + " inputs");
        }
        eo.params = EncodeParams(kp->params);
        for (s8_concat_input in : kp->inputs) {
          int32_t w[rt::abi::kConcatInputWords];
          rt::abi::FieldWriter fw{w};
          rt::abi::VisitConcatInput(in, fw);
          eo.params.insert(eo.params.end(), w, w + rt::abi::kConcatInputWords);
        }
        for (ir::TensorId in : op.inputs) eo.operands.push_back(enc.InputOp(in));
        eo.operands.push_back(enc.ActOp(y));
        eo.spec.macs = Elements(g, y);
        break;
      }
      case OpType::kQPad:
      case OpType::kPad: {  // (a float model's: bytes, padded with +0.0)
        auto p = quant::PadParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kPad));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.ActOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, y);
        break;
      }
      case OpType::kSlice: {
        auto p = quant::SliceParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kSlice));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.ActOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, y);
        break;
      }
      case OpType::kResize: {
        if (op.attrs_as<ir::ResizeAttrs>().layout != ir::Layout::kNHWC) {
          return Error::Unsupported(OpLabel(g, k) + ": resize needs layout=NHWC");
        }
        if (g.tensor(x).dtype == ir::DType::kFloat32 && op.attrs_as<ir::ResizeAttrs>().bilinear) {
          auto p = quant::F32ResizeParams(g, op);  // (nearest: bytes, below)
          TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
          TF_RETURN_IF_ERROR(kernel(rt::OpKind::kF32Resize));
          eo.params = EncodeParams(p->params);
          eo.operands = {enc.ActOp(x), enc.NewConst(op.name + ".table", p->table), enc.ActOp(y)};
          eo.spec.macs = 4 * Elements(g, y);
          break;
        }
        auto p = quant::ResizeParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kResize));
        eo.params = EncodeParams(p->params);
        eo.operands = {enc.ActOp(x), enc.NewConst(op.name + ".table", p->table), enc.ActOp(y)};
        eo.spec.macs = Elements(g, y);
        break;
      }
      case OpType::kTranspose: {
        auto p = quant::TransposeParams(g, op);
        TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kTranspose));
        eo.params = EncodeParams(*p);
        eo.operands = {enc.ActOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, y);
        break;
      }
      case OpType::kQuantize:
      case OpType::kDequantize: {
        const bool q = op.type == OpType::kQuantize;
        TF_RETURN_IF_ERROR(kernel(q ? rt::OpKind::kQuantize : rt::OpKind::kDequantize));
        if (q) {
          auto p = quant::QuantizeParams(g, op);
          TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
          eo.params = EncodeParams(*p);
        } else {
          auto p = quant::DequantizeParams(g, op);
          TF_RETURN_IF_ERROR_PREFIX(p, OpLabel(g, k));
          eo.params = EncodeParams(*p);
        }
        eo.operands = {enc.ActOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, x);
        break;
      }
      case OpType::kFConv2d:  // float models (fold-float)
      case OpType::kFDwConv2d: {
        const bool dw = op.type == OpType::kFDwConv2d;
        TF_RETURN_IF_ERROR(kernel(dw ? rt::OpKind::kF32Dwconv : rt::OpKind::kF32Conv));
        auto p = quant::F32ConvParams(g, op);
        TF_RETURN_IF_ERROR(params(p));
        eo.operands = {enc.ActOp(x), enc.ConstOf(op.inputs[1]), enc.ConstOf(op.inputs[2]), {},
                       {}, enc.ActOp(y), {}};
        eo.spec.macs = Elements(g, y) * p->k_h * p->k_w * (dw ? 1 : p->in_c);
        break;
      }
      case OpType::kFFc: {
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kF32Fc));
        auto p = quant::F32FcParams(g, op);
        TF_RETURN_IF_ERROR(params(p));
        eo.operands = {enc.ActOp(x), enc.ConstOf(op.inputs[1]), enc.ConstOf(op.inputs[2]), {},
                       {}, enc.ActOp(y), {}};
        eo.spec.macs = int64_t{p->batches} * p->in_features * p->out_features;
        break;
      }
      case OpType::kFAvgPool2d:
      case OpType::kFMaxPool2d: {
        const bool avg = op.type == OpType::kFAvgPool2d;
        TF_RETURN_IF_ERROR(kernel(avg ? rt::OpKind::kF32Avgpool : rt::OpKind::kF32Maxpool));
        auto p = quant::F32PoolParams(g, op);
        TF_RETURN_IF_ERROR(params(p));
        eo.operands = {enc.ActOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, y) * p->filter_h * p->filter_w;
        break;
      }
      // A float model's other ops (fold-float, decision 68).
      case OpType::kMean:
      case OpType::kSum:
      case OpType::kAmax: {
        auto perm = quant::ReductionPerm(g, op);
        TF_RETURN_IF_ERROR_PREFIX(perm, OpLabel(g, k));
        if (!perm->empty()) {
          return Error::Internal(OpLabel(g, k) + ": reduced dims not one run (layout pass)");
        }
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kF32Reduce));
        TF_RETURN_IF_ERROR(params(quant::F32ReduceParams(g, op)));
        eo.operands = {enc.ActOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, x);
        break;
      }
      case OpType::kSoftmax:
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kF32Softmax));
        TF_RETURN_IF_ERROR(params(quant::F32SoftmaxParams(g, op)));
        eo.operands = {enc.ActOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, x);
        break;
      case OpType::kLayerNorm:
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kF32LayerNorm));
        TF_RETURN_IF_ERROR(params(quant::F32LayerNormParams(g, op)));
        eo.operands = {enc.ActOp(x), enc.InputOp(op.inputs[1]), enc.InputOp(op.inputs[2]),
                       enc.ActOp(y)};
        eo.spec.macs = Elements(g, x);
        break;
      case OpType::kMatmul: {
        TF_RETURN_IF_ERROR(kernel(rt::OpKind::kF32Bmm));
        auto p = quant::F32BmmParams(g, op);
        TF_RETURN_IF_ERROR(params(p));
        eo.operands = {enc.InputOp(op.inputs[0]), enc.InputOp(op.inputs[1]), enc.ActOp(y)};
        eo.spec.macs = int64_t{p->batches} * p->rows * p->depth * p->cols;
        break;
      }
      case OpType::kUnary:
      case OpType::kCumsum: {
        const bool unary = op.type == OpType::kUnary;
        TF_RETURN_IF_ERROR(kernel(unary ? rt::OpKind::kF32Unary : rt::OpKind::kF32Cumsum));
        TF_RETURN_IF_ERROR(unary ? params(quant::F32UnaryParams(g, op))
                                 : params(quant::F32CumsumParams(g, op)));
        eo.operands = {enc.InputOp(x), enc.ActOp(y)};
        eo.spec.macs = Elements(g, x);
        if (!g.tensor(x).is_constant()) eo.spec.in_place = plan::InPlace::kAlias;
        break;
      }
      default:
        return Error::Unsupported(OpLabel(g, k) + ": " + std::string(ir::OpTypeName(op.type)) +
                                  " has no runtime kernel");
    }
    for (ir::TensorId in : op.inputs) {
      if (!g.tensor(in).is_constant()) eo.spec.inputs.push_back(enc.Act(in));
    }
    eo.spec.outputs = {enc.Act(y)};
    // Offer the planner only what the runtime accepts (tinyforge/in_place.h, one definition).
    const rt::InPlaceMode allowed = rt::InPlaceRuleOf(eo.kernel->op).mode;
    const bool exact_by_kernel = rt::InPlaceRuleOf(eo.kernel->op).exact_by_kernel;
    if ((eo.spec.in_place == plan::InPlace::kAlias && allowed != rt::InPlaceMode::kExact &&
         !exact_by_kernel) ||
        (eo.spec.in_place == plan::InPlace::kStream && allowed != rt::InPlaceMode::kStream)) {
      eo.spec.in_place = plan::InPlace::kNone;
    }
    if (eo.spec.in_place != plan::InPlace::kNone) {
      // in_place_input indexes spec.inputs: the activation inputs, in op order.
      const ir::TensorId src = op.inputs[static_cast<size_t>(eo.spec.in_place_input)];
      int pos = 0;
      for (ir::TensorId in : op.inputs) {
        if (in == src) break;
        if (!g.tensor(in).is_constant()) ++pos;
      }
      eo.spec.in_place_input = pos;
    }
    e.ops.push_back(std::move(eo));
  }
  return e;
}

}  // namespace tinyforge::emit::detail
