// fold-float: a float graph (an export without calibration) becomes a lowered graph that
// runs in float32 (docs/decisions.md 52, 68): conv2d -> fconv2d or fdwconv2d, linear -> ffc,
// the pools -> favgpool2d / fmaxpool2d, with a ReLU / ReLU6 / hardtanh that follows one of
// them (its only reader) fused as the op's float clamp; the elementwise ops and activations
// become the float fallback's `unary` / `binary` (a ReLU elsewhere is binary maximum with 0,
// leaky_relu and elu a binary with a constant parameter, an elu with a scale (selu) that
// times the scale); the rest stays as it is, run by the float kernels (mean, sum, amax,
// softmax, layer_norm with its weight and bias made explicit, matmul, argmax, bilinear
// resize) or moved as bytes by the int8 data movement kernels (cat, pad, transpose, slice,
// gather, nearest resize, reshape). The graph's kind becomes "int8" (= lowered: the passes
// after this one, the planner and the emitter take it as any lowered graph); its tensors
// stay float32. Layout stays NCHW (the ops say layout=NCHW; the layout pass moves them to
// NHWC).
//
// What the float kernels do not compute is rejected naming the op, as fold-qdq does (grouped
// convolution that is not depthwise, dilated max pooling, an average pool counting its
// padding, a pad value other than +0.0, celu, softplus with a threshold other than 20,
// hardshrink, softshrink, threshold).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/verifier.h"
#include "passes/pass.h"
#include "passes/util.h"

namespace tinyforge::passes {
namespace {

using ir::OpType;
using ir::TensorId;

class FloatFolder {
 public:
  explicit FloatFolder(ir::Graph& g)
      : g_(g), consumers_(ir::ComputeConsumers(g)), fused_(g.ops.size(), false) {}

  Status Run() {
    for (index_ = 0; index_ < g_.ops.size(); ++index_) {
      if (fused_[index_]) continue;
      TF_RETURN_IF_ERROR(FoldOne());
    }
    g_.ops = std::move(out_);
    g_.kind = ir::GraphKind::kInt8;
    RemoveDeadCode(g_);
    return OkStatus();
  }

 private:
  const ir::Op& op() const { return g_.ops[index_]; }
  Error Fail(const std::string& what) const { return OpError(g_, index_, what); }

  void Emit(OpType type, std::vector<TensorId> in, TensorId y, ir::Attrs attrs,
            const std::string& name) {
    ir::Op o = ir::MakeOp(type, name, std::move(in), {y}, std::move(attrs));
    o.source = op().source;
    out_.push_back(std::move(o));
  }

  bool IsOutput(TensorId t) const {
    return std::find(g_.outputs.begin(), g_.outputs.end(), t) != g_.outputs.end();
  }

  // Follows the chain of ReLU / hardtanh ops that alone read the op's output: their clamps
  // narrow [lo, hi]; they are fused away and the last one's output is returned.
  TensorId FuseClamp(double& lo, double& hi) {
    TensorId t = op().outputs[0];
    for (;;) {
      const auto& readers = consumers_[static_cast<size_t>(t)];
      if (readers.size() != 1 || IsOutput(t)) return t;
      const size_t r = static_cast<size_t>(readers[0]);
      const ir::Op& a = g_.ops[r];
      if (a.type == OpType::kRelu) {
        lo = std::max(lo, 0.0);
      } else if (a.type == OpType::kHardtanh) {
        // PyTorch applies the bounds as float32 (HardtanhAttrs).
        const auto& h = a.attrs_as<ir::HardtanhAttrs>();
        lo = std::max(lo, static_cast<double>(static_cast<float>(h.min)));
        hi = std::min(hi, static_cast<double>(static_cast<float>(h.max)));
      } else {
        return t;
      }
      fused_[r] = true;
      t = a.outputs[0];
    }
  }

  // A float32 constant of `shape` holding `value` everywhere.
  TensorId Fill(const std::string& name, ir::Shape shape, float value) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> v(static_cast<size_t>(n), value);
    return AddConstant(g_, tensor_names_, name, ir::DType::kFloat32, std::move(shape),
                       Bytes<float>(v));
  }

  // The op's bias input, or zeros when it has none.
  TensorId Bias(int64_t out_channels) {
    if (op().inputs.size() >= 3) return op().inputs[2];
    return Fill(op().name + ".bias", {out_channels}, 0.0f);
  }

  Status Weighted() {
    const ir::Op& o = op();
    const TensorId x = o.inputs[0], w = o.inputs[1];
    if (!g_.tensor(w).is_constant() || (o.inputs.size() >= 3 && !g_.tensor(o.inputs[2]).is_constant())) {
      return Fail("weights and bias must be constants (float models run conv2d and linear "
                  "with constant parameters)");
    }
    const int64_t out_c = g_.tensor(w).shape[0];
    const TensorId b = Bias(out_c);
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    const TensorId y = FuseClamp(lo, hi);
    if (o.type == OpType::kLinear) {
      Emit(OpType::kFFc, {x, w, b}, y, ir::FFcAttrs{lo, hi}, o.name);
      return OkStatus();
    }
    const auto& a = o.attrs_as<ir::Conv2dAttrs>();
    const int64_t in_c = g_.tensor(x).shape[1];
    const ir::FConv2dAttrs f{a.stride, a.padding, a.dilation, lo, hi, ir::Layout::kNCHW};
    if (a.groups == 1) {
      Emit(OpType::kFConv2d, {x, w, b}, y, f, o.name);
    } else if (a.groups == in_c && g_.tensor(w).shape[1] == 1) {
      Emit(OpType::kFDwConv2d, {x, w, b}, y, f, o.name);
    } else {
      return Fail("conv2d with groups=" + std::to_string(a.groups) +
                  " that is not depthwise: the float kernels run ordinary and depthwise "
                  "convolutions only");
    }
    return OkStatus();
  }

  // PyTorch's ceil_mode windows past the padded input become bottom/right padding.
  static ir::Pad4 CeilPadding(const ir::Pad4& pad, const ir::Vec2& kernel,
                              const ir::Vec2& stride, const ir::Shape& x, const ir::Shape& y) {
    ir::Pad4 p = pad;
    for (int i = 0; i < 2; ++i) {
      const int64_t need = (y[2 + static_cast<size_t>(i)] - 1) * stride[i] + kernel[i] -
                           x[2 + static_cast<size_t>(i)] - pad[i];
      p[2 + i] = std::max(pad[2 + i], need);
    }
    return p;
  }

  Status Pool() {
    const ir::Op& o = op();
    const ir::Shape& xs = g_.tensor(o.inputs[0]).shape;
    const ir::Shape& ys = g_.tensor(o.outputs[0]).shape;
    if (xs.size() != 4) return Fail("pooling needs a [N,C,H,W] input");
    ir::FPool2dAttrs f;
    OpType type = OpType::kFMaxPool2d;
    if (o.type == OpType::kMaxPool2d) {
      const auto& a = o.attrs_as<ir::MaxPool2dAttrs>();
      if (a.dilation != ir::Vec2{1, 1}) {
        return Fail("max_pool2d with dilation: the float kernels pool undilated windows");
      }
      f.kernel = a.kernel, f.stride = a.stride;
      f.padding = CeilPadding(a.padding, a.kernel, a.stride, xs, ys);
    } else {
      type = OpType::kFAvgPool2d;
      const auto& a = o.attrs_as<ir::AvgPool2dAttrs>();
      const bool padded =
          std::any_of(a.padding.begin(), a.padding.end(), [](int64_t p) { return p != 0; });
      if (a.count_include_pad && padded) {
        return Fail("avg_pool2d with padding and count_include_pad=True: the float kernel "
                    "divides by the taps inside the input (use count_include_pad=False)");
      }
      f.kernel = a.kernel, f.stride = a.stride;
      f.padding = CeilPadding(a.padding, a.kernel, a.stride, xs, ys);
      const bool full =
          std::all_of(f.padding.begin(), f.padding.end(), [](int64_t p) { return !p; });
      if (a.divisor_override != 0 && !(full && a.divisor_override == a.kernel[0] * a.kernel[1])) {
        return Fail("avg_pool2d with divisor_override=" + std::to_string(a.divisor_override) +
                    ": the float kernel divides by the taps inside the input");
      }
    }
    Emit(type, {o.inputs[0]}, o.outputs[0], f, o.name);
    return OkStatus();
  }

  // y = max(x, lo) then min(., hi) as float fallback binaries (a ReLU not after a layer).
  Status Clamp(double lo, double hi) {
    const ir::Op& o = op();
    const TensorId x = o.inputs[0], y = o.outputs[0];
    const ir::Shape ones(g_.tensor(x).shape.size(), 1);  // same rank: the layout pass needs it
    TensorId t = x;
    if (lo > -std::numeric_limits<double>::infinity()) {
      const bool last = !(hi < std::numeric_limits<double>::infinity());
      TensorId mid = y;
      if (!last) {
        ir::Tensor m = g_.tensor(y);
        m.name = tensor_names_.Unique(m.name + ".lo");
        mid = g_.AddTensor(std::move(m));
      }
      const TensorId c = Fill(o.name + ".min", ones, static_cast<float>(lo));
      Emit(OpType::kBinary, {t, c}, mid, ir::FloatFnAttrs{ir::FloatFn::kMaximum},
           last ? o.name : op_names_.Unique(o.name + ".max"));
      t = mid;
    }
    if (hi < std::numeric_limits<double>::infinity()) {
      const TensorId c = Fill(o.name + ".max", ones, static_cast<float>(hi));
      Emit(OpType::kBinary, {t, c}, y, ir::FloatFnAttrs{ir::FloatFn::kMinimum}, o.name);
    }
    return OkStatus();
  }

  Status FoldOne() {
    const ir::Op& o = op();
    switch (o.type) {
      case OpType::kConv2d:
      case OpType::kLinear:
        return Weighted();
      case OpType::kMaxPool2d:
      case OpType::kAvgPool2d:
        return Pool();
      case OpType::kRelu:
        return Clamp(0.0, std::numeric_limits<double>::infinity());
      case OpType::kHardtanh: {
        const auto& h = o.attrs_as<ir::HardtanhAttrs>();
        return Clamp(static_cast<float>(h.min), static_cast<float>(h.max));
      }
      case OpType::kAdd:
      case OpType::kSub:
      case OpType::kMul:
      case OpType::kMaximum:
      case OpType::kMinimum: {
        const ir::FloatFn fn = o.type == OpType::kAdd       ? ir::FloatFn::kAdd
                               : o.type == OpType::kSub     ? ir::FloatFn::kSub
                               : o.type == OpType::kMul     ? ir::FloatFn::kMul
                               : o.type == OpType::kMaximum ? ir::FloatFn::kMaximum
                                                            : ir::FloatFn::kMinimum;
        Emit(OpType::kBinary, o.inputs, o.outputs[0], ir::FloatFnAttrs{fn}, o.name);
        return OkStatus();
      }
      case OpType::kSigmoid:
      case OpType::kTanh:
      case OpType::kHardswish:
      case OpType::kHardsigmoid:
      case OpType::kSilu:
      case OpType::kGelu:
      case OpType::kMish:
      case OpType::kLogSigmoid: {
        Emit(OpType::kUnary, o.inputs, o.outputs[0], ir::FloatFnAttrs{UnaryFnOf(o)}, o.name);
        return OkStatus();
      }
      case OpType::kLeakyRelu:  // prelu with a constant slope
        return WithConstant(ir::FloatFn::kPrelu,
                            static_cast<float>(o.attrs_as<ir::LeakyReluAttrs>().negative_slope));
      case OpType::kPrelu: {  // one slope per channel (dim 1): a [1, C, 1, ...] constant
        const ir::Tensor& w = g_.tensor(o.inputs[1]);
        if (!w.is_constant()) return Fail("prelu with a slope that is not a constant");
        ir::Shape shape(g_.tensor(o.inputs[0]).shape.size(), 1);
        shape[1] = w.shape[0];
        std::vector<uint8_t> bytes = *w.data;
        const TensorId k = AddConstant(g_, tensor_names_, o.name + ".slope",
                                       ir::DType::kFloat32, std::move(shape), std::move(bytes));
        Emit(OpType::kBinary, {o.inputs[0], k}, o.outputs[0],
             ir::FloatFnAttrs{ir::FloatFn::kPrelu}, o.name);
        return OkStatus();
      }
      case OpType::kElu: {  // selu: elu, then times scale
        const auto& a = o.attrs_as<ir::EluAttrs>();
        if (a.input_scale != 1.0) {
          return Fail("elu with input_scale other than 1 (celu): the float kernel computes "
                      "x > 0 ? x : alpha * (exp(x) - 1), times scale");
        }
        return WithConstant(ir::FloatFn::kElu, static_cast<float>(a.alpha),
                            static_cast<float>(a.scale));
      }
      case OpType::kSoftplus: {
        const auto& a = o.attrs_as<ir::SoftplusAttrs>();
        if (a.threshold != 20.0) {
          return Fail("softplus with threshold " + std::to_string(a.threshold) +
                      ": the float kernel takes PyTorch's default, 20");
        }
        return WithConstant(ir::FloatFn::kSoftplus, static_cast<float>(a.beta));
      }
      case OpType::kSquare:
        Emit(OpType::kBinary, {o.inputs[0], o.inputs[0]}, o.outputs[0],
             ir::FloatFnAttrs{ir::FloatFn::kMul}, o.name);
        return OkStatus();
      case OpType::kHardshrink:
      case OpType::kSoftshrink:
      case OpType::kThreshold:
        return Fail(std::string(ir::OpTypeName(o.type)) +
                    " in a float model: the float kernels do not compute it; export with "
                    "calibration data (int8: a table lookup)");
      case OpType::kLayerNorm:
        return LayerNorm();
      case OpType::kPad:
        if (!(o.attrs_as<ir::PadAttrs>().value == 0.0 &&
              !std::signbit(o.attrs_as<ir::PadAttrs>().value))) {
          return Fail("pad with value " + std::to_string(o.attrs_as<ir::PadAttrs>().value) +
                      ": float models pad with +0.0 only (the pad kernel fills bytes)");
        }
        out_.push_back(o);
        return OkStatus();
      // Kept as they are: data movement (the int8 kernels move a float32 tensor's bytes) and
      // the float kernels' ops (docs/decisions.md 68).
      case OpType::kReshape:
      case OpType::kUnary:
      case OpType::kBinary:
      case OpType::kCumsum:
      case OpType::kMean:
      case OpType::kSum:
      case OpType::kAmax:
      case OpType::kSoftmax:
      case OpType::kMatmul:
      case OpType::kCat:
      case OpType::kTranspose:
      case OpType::kResize:  // (bilinear: f32_resize)
      case OpType::kSlice:
      case OpType::kGather:
      case OpType::kArgMax:
        out_.push_back(o);
        return OkStatus();
      default:  // quantize / dequantize (a float graph has none) and the lowered ops
        return Fail(std::string(ir::OpTypeName(o.type)) + " is not an op of a float graph");
    }
  }

  static ir::FloatFn UnaryFnOf(const ir::Op& o) {
    switch (o.type) {
      case OpType::kSigmoid: return ir::FloatFn::kSigmoid;
      case OpType::kTanh: return ir::FloatFn::kTanh;
      case OpType::kHardswish: return ir::FloatFn::kHardswish;
      case OpType::kHardsigmoid: return ir::FloatFn::kHardsigmoid;
      case OpType::kSilu: return ir::FloatFn::kSilu;
      case OpType::kMish: return ir::FloatFn::kMish;
      case OpType::kLogSigmoid: return ir::FloatFn::kLogSigmoid;
      default:  // gelu
        return o.attrs_as<ir::GeluAttrs>().approximate_tanh ? ir::FloatFn::kGeluTanh
                                                            : ir::FloatFn::kGelu;
    }
  }

  // y = fn(x, c) for a float32 constant c of x's rank (the layout pass needs equal ranks),
  // then y * scale unless scale is 1.
  Status WithConstant(ir::FloatFn fn, float c, float scale = 1.0f) {
    const ir::Op& o = op();
    const TensorId x = o.inputs[0], y = o.outputs[0];
    const ir::Shape ones(g_.tensor(x).shape.size(), 1);
    const TensorId k = Fill(o.name + ".param", ones, c);
    TensorId mid = y;
    if (scale != 1.0f) {
      ir::Tensor m = g_.tensor(y);
      m.name = tensor_names_.Unique(m.name + ".unscaled");
      mid = g_.AddTensor(std::move(m));
    }
    Emit(OpType::kBinary, {x, k}, mid, ir::FloatFnAttrs{fn},
         scale != 1.0f ? op_names_.Unique(o.name + ".unscaled") : o.name);
    if (scale != 1.0f) {
      const TensorId s = Fill(o.name + ".scale", ones, scale);
      Emit(OpType::kBinary, {mid, s}, y, ir::FloatFnAttrs{ir::FloatFn::kMul}, o.name);
    }
    return OkStatus();
  }

  // layer_norm with its weight and bias always present (ones, zeros) for the one kernel form.
  Status LayerNorm() {
    ir::Op o = op();
    const int64_t depth = g_.tensor(o.inputs[0]).shape.back();
    if (o.inputs.size() < 2) o.inputs.push_back(Fill(o.name + ".weight", {depth}, 1.0f));
    if (o.inputs.size() < 3) o.inputs.push_back(Fill(o.name + ".bias", {depth}, 0.0f));
    out_.push_back(std::move(o));
    return OkStatus();
  }

  ir::Graph& g_;
  std::vector<std::vector<int>> consumers_;
  std::vector<bool> fused_;
  std::vector<ir::Op> out_;
  size_t index_ = 0;
  TensorNames tensor_names_{{&g_.tensors}};
  NameIndex<ir::Op> op_names_{{&g_.ops, &out_}};
};

}  // namespace

Status FoldFloat(ir::Graph& g, const PassOptions& options) {
  if (g.kind != ir::GraphKind::kFloat) return OkStatus();  // qdq: fold-qdq's
  if (!options.allow_float) {
    return Error::Unsupported("graph '" + g.name + "' is a float graph: all of its " +
                              std::to_string(g.ops.size()) + " ops would run in float32 and " +
                              "--no-float forbids it (export with calibration data to " +
                              "quantize it)");
  }
  return FloatFolder(g).Run();
}

}  // namespace tinyforge::passes
