#include "quant/op_params.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "ir/shape_inference.h"
#include "quant/params_check.h"
#include "quant/quant_util.h"
#include "support/text.h"

namespace tinyforge::quant {
namespace {

using ir::Graph;
using ir::Layout;
using ir::Op;
using ir::OpType;
using ir::Tensor;

using detail::Dims;
using detail::I32;

std::vector<int32_t> Int32Values(const Tensor& t) {
  std::vector<int32_t> v(static_cast<size_t>(t.num_elements()));
  if (t.data && t.data->size() == v.size() * 4) {
    std::memcpy(v.data(), t.data->data(), t.data->size());
  }
  return v;
}

std::vector<float> WeightScales(const Tensor& w) {
  std::vector<float> s;
  for (double v : w.quant->scale) s.push_back(static_cast<float>(v));
  return s;
}

// The op's stored (multiplier, shift) when `use_inputs` and it has them.
std::optional<RequantConstants> Stored(const Graph& g, const Op& op, bool use_inputs) {
  if (!use_inputs || !HasRequantInputs(op)) return std::nullopt;
  const size_t base = RequantBaseInputs(op.type);
  for (size_t i = base; i < base + 2; ++i) {
    if (!g.tensor(op.inputs[i]).is_constant()) return std::nullopt;  // verified graphs: never
  }
  return RequantConstants{Int32Values(g.tensor(op.inputs[base])),
                          Int32Values(g.tensor(op.inputs[base + 1]))};
}

// The kernels' `rounding` field for the graph's rounding mode.
int32_t RoundingWord(const Graph& g) {
  return g.rounding == ir::Rounding::kDouble ? TF_ROUNDING_DOUBLE : TF_ROUNDING_SINGLE;
}

quant::Padding2D Pad(const ir::Pad4& p) {
  return {I32(p[0]), I32(p[1]), I32(p[2]), I32(p[3])};
}

// The geometry conv and depthwise specs share, from the op's tensors and attrs.
template <class Spec, class Attrs>
void ConvGeometry(const Tensor& x, const Tensor& w, const Attrs& a, Spec& s) {
  const bool nhwc = a.layout == Layout::kNHWC;
  s.batches = I32(x.shape[0]);
  s.in_h = I32(x.shape[nhwc ? 1 : 2]);
  s.in_w = I32(x.shape[nhwc ? 2 : 3]);
  s.in_c = I32(x.shape[nhwc ? 3 : 1]);
  s.k_h = I32(w.shape[nhwc ? 1 : 2]);
  s.k_w = I32(w.shape[nhwc ? 2 : 3]);
  s.stride_h = I32(a.stride[0]), s.stride_w = I32(a.stride[1]);
  s.dilation_h = I32(a.dilation[0]), s.dilation_w = I32(a.dilation[1]);
  s.padding = Pad(a.padding);
}

// What conv, depthwise and FC params take from the op beyond the quant builders: the fused
// clamp, the folded input offset, the stored multipliers and the graph's rounding.
template <class R, class Attrs>
R Finish(R r, const Graph& g, const Op& op, const Attrs& a, bool use_inputs) {
  r.params.act_min = I32(a.act_min), r.params.act_max = I32(a.act_max);
  if (a.input_zp_folded) r.params.input_offset = 0;
  if (auto c = Stored(g, op, use_inputs)) r.multiplier = c->multiplier, r.shift = c->shift;
  r.params.rounding = RoundingWord(g);
  return r;
}

Expected<quant::ConvKernelParams> Conv(const Graph& g, const Op& op, bool use_inputs) {
  const auto& a = op.attrs_as<ir::QConv2dAttrs>();
  const Tensor& x = g.tensor(op.inputs[0]);
  const Tensor& w = g.tensor(op.inputs[1]);
  quant::ConvSpec s;
  ConvGeometry(x, w, a, s);
  s.out_c = I32(w.shape[0]);
  s.groups = I32(a.groups);
  TF_ASSIGN_OR_RETURN(quant::ConvKernelParams r,
                      quant::MakeConvParams(s, TensorQuantOf(x), WeightScales(w),
                                            TensorQuantOf(g.tensor(op.outputs[0]))));
  return Finish(std::move(r), g, op, a, use_inputs);
}

Expected<quant::DwConvKernelParams> DwConv(const Graph& g, const Op& op, bool use_inputs) {
  const auto& a = op.attrs_as<ir::QDwConv2dAttrs>();
  const Tensor& x = g.tensor(op.inputs[0]);
  const Tensor& w = g.tensor(op.inputs[1]);
  quant::DwConvSpec s;
  ConvGeometry(x, w, a, s);
  s.depth_multiplier = I32(a.depth_multiplier);
  TF_ASSIGN_OR_RETURN(quant::DwConvKernelParams r,
                      quant::MakeDwConvParams(s, TensorQuantOf(x), WeightScales(w),
                                              TensorQuantOf(g.tensor(op.outputs[0]))));
  return Finish(std::move(r), g, op, a, use_inputs);
}

Expected<quant::FcKernelParams> Fc(const Graph& g, const Op& op, bool use_inputs) {
  const auto& a = op.attrs_as<ir::QFcAttrs>();
  const Tensor& x = g.tensor(op.inputs[0]);
  const Tensor& w = g.tensor(op.inputs[1]);
  quant::FcSpec s;
  s.in_features = I32(w.shape[1]);
  s.out_features = I32(w.shape[0]);
  s.batches = I32(x.num_elements() / w.shape[1]);
  TF_ASSIGN_OR_RETURN(quant::FcKernelParams r,
                      quant::MakeFcParams(s, TensorQuantOf(x), WeightScales(w),
                                          TensorQuantOf(g.tensor(op.outputs[0]))));
  const bool stored = Stored(g, op, use_inputs).has_value();
  r = Finish(std::move(r), g, op, a, use_inputs);
  if (stored) r.params.per_channel = r.multiplier.size() > 1 ? 1 : 0;
  return r;
}

Expected<s8_add_params> Add(const Graph& g, const Op& op, bool use_inputs) {
  const auto& a = op.attrs_as<ir::ClampAttrs>();
  const Tensor& x1 = g.tensor(op.inputs[0]);
  const Tensor& x2 = g.tensor(op.inputs[1]);
  TF_ASSIGN_OR_RETURN(
      s8_add_params p,
      quant::MakeAddParams(Dims(x1.shape), Dims(x2.shape), TensorQuantOf(x1), TensorQuantOf(x2),
                           TensorQuantOf(g.tensor(op.outputs[0])), quant::Activation::kNone));
  p.act_min = I32(a.act_min), p.act_max = I32(a.act_max);
  if (auto c = Stored(g, op, use_inputs)) {
    p.input1_multiplier = c->multiplier[0], p.input1_shift = c->shift[0];
    p.input2_multiplier = c->multiplier[1], p.input2_shift = c->shift[1];
    p.output_multiplier = c->multiplier[2], p.output_shift = c->shift[2];
  }
  p.rounding = RoundingWord(g);
  return p;
}

Expected<s8_add_params> SquaredDifference(const Graph& g, const Op& op, bool use_inputs) {
  const auto& a = op.attrs_as<ir::ClampAttrs>();
  const Tensor& x1 = g.tensor(op.inputs[0]);
  const Tensor& x2 = g.tensor(op.inputs[1]);
  TF_ASSIGN_OR_RETURN(
      s8_add_params p,
      quant::MakeSquaredDifferenceParams(Dims(x1.shape), Dims(x2.shape), TensorQuantOf(x1),
                                         TensorQuantOf(x2), TensorQuantOf(g.tensor(op.outputs[0]))));
  p.act_min = I32(a.act_min), p.act_max = I32(a.act_max);
  if (auto c = Stored(g, op, use_inputs)) {
    p.input1_multiplier = c->multiplier[0], p.input1_shift = c->shift[0];
    p.input2_multiplier = c->multiplier[1], p.input2_shift = c->shift[1];
    p.output_multiplier = c->multiplier[2], p.output_shift = c->shift[2];
  }
  p.rounding = RoundingWord(g);
  return p;
}

// An operand's batch count as the kernel repeats it: 1, or the product of its batch dims
// when (leading 1s dropped) they are the output's trailing batch dims; else an error.
Expected<int32_t> BmmBatches(const ir::Shape& s, const ir::Shape& y, const char* which) {
  const ir::Shape yb(y.begin(), y.end() - 2);
  ir::Shape b(s.begin(), s.end() - 2);
  while (!b.empty() && b.front() == 1) b.erase(b.begin());
  int64_t n = 1;
  for (int64_t d : b) n *= d;
  if (n == 1) return 1;
  if (b.size() > yb.size() || !std::equal(b.begin(), b.end(), yb.end() - static_cast<ptrdiff_t>(b.size()))) {
    return Error(std::string("bmm: the ") + which + " batch dims " + FormatInts(ir::Shape(s.begin(), s.end() - 2)) +
                 " broadcast against the output's " + FormatInts(yb) +
                 " in a way the kernel does not take (it repeats a whole operand, or one whose "
                 "batch dims are the output's trailing ones); expand the operand first");
  }
  return I32(n);
}

Expected<s8_bmm_params> Bmm(const Graph& g, const Op& op, bool use_inputs) {
  const auto& a = op.attrs_as<ir::QBmmAttrs>();
  const Tensor& x = g.tensor(op.inputs[0]);
  const Tensor& w = g.tensor(op.inputs[1]);
  const Tensor& y = g.tensor(op.outputs[0]);
  const size_t r = y.shape.size();
  quant::BmmSpec s;
  s.rows = I32(y.shape[r - 2]);
  s.cols = I32(y.shape[r - 1]);
  s.depth = I32(a.adj_x ? x.shape[x.shape.size() - 2] : x.shape.back());
  s.batches = I32(y.num_elements() / (int64_t{s.rows} * s.cols));
  TF_ASSIGN_OR_RETURN(s.lhs_batches, BmmBatches(x.shape, y.shape, "lhs"));
  TF_ASSIGN_OR_RETURN(s.rhs_batches, BmmBatches(w.shape, y.shape, "rhs"));
  s.lhs_transposed = a.adj_x;
  s.rhs_transposed = a.adj_y;
  TF_ASSIGN_OR_RETURN(s8_bmm_params p, quant::MakeBmmParams(s, TensorQuantOf(x), TensorQuantOf(w),
                                                            TensorQuantOf(y)));
  p.act_min = I32(a.act_min), p.act_max = I32(a.act_max);
  if (auto c = Stored(g, op, use_inputs)) p.multiplier = c->multiplier[0], p.shift = c->shift[0];
  p.rounding = RoundingWord(g);
  return p;
}

Expected<s8_mul_params> Mul(const Graph& g, const Op& op, bool use_inputs) {
  const auto& a = op.attrs_as<ir::ClampAttrs>();
  const Tensor& x1 = g.tensor(op.inputs[0]);
  const Tensor& x2 = g.tensor(op.inputs[1]);
  TF_ASSIGN_OR_RETURN(
      s8_mul_params p,
      quant::MakeMulParams(Dims(x1.shape), Dims(x2.shape), TensorQuantOf(x1), TensorQuantOf(x2),
                           TensorQuantOf(g.tensor(op.outputs[0])), quant::Activation::kNone));
  p.act_min = I32(a.act_min), p.act_max = I32(a.act_max);
  if (auto c = Stored(g, op, use_inputs)) {
    p.output_multiplier = c->multiplier[0], p.output_shift = c->shift[0];
  }
  p.rounding = RoundingWord(g);
  return p;
}

Expected<s8_prelu_params> Prelu(const Graph& g, const Op& op, bool use_inputs) {
  const Tensor& x = g.tensor(op.inputs[0]);
  const Tensor& alpha = g.tensor(op.inputs[1]);
  TF_ASSIGN_OR_RETURN(
      s8_prelu_params p,
      quant::MakePreluParams(Dims(x.shape), Dims(alpha.shape), TensorQuantOf(x),
                             TensorQuantOf(alpha), TensorQuantOf(g.tensor(op.outputs[0]))));
  if (auto c = Stored(g, op, use_inputs)) {
    p.output_multiplier_1 = c->multiplier[0], p.output_shift_1 = c->shift[0];
    p.output_multiplier_2 = c->multiplier[1], p.output_shift_2 = c->shift[1];
  }
  p.rounding = RoundingWord(g);
  return p;
}

// The input dims and reduced axes a reduction's kernel sees: x's own, or, when the reduced
// dims are not one run (a graph before the layout pass), those of x transposed by
// ReductionPerm (kept dims first): [kept..., reduced...] reduced over the trailing dims.
struct ReductionView {
  std::vector<int32_t> dims;
  std::vector<int64_t> axes;
};
Expected<ReductionView> ViewOf(const Graph& g, const Op& op) {
  const Tensor& x = g.tensor(op.inputs[0]);
  TF_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                      ir::NormalizeMeanDims(op.attrs_as<ir::MeanAttrs>(),
                                            static_cast<int64_t>(x.shape.size())));
  TF_ASSIGN_OR_RETURN(auto perm, ReductionPerm(g, op));
  if (perm.empty()) return ReductionView{Dims(x.shape), dims};
  ReductionView v;
  for (int64_t d : perm) v.dims.push_back(I32(x.shape[static_cast<size_t>(d)]));
  const int64_t kept = static_cast<int64_t>(perm.size() - dims.size());
  for (int64_t d = kept; d < static_cast<int64_t>(perm.size()); ++d) v.axes.push_back(d);
  return v;
}

Expected<s8_mean_params> Mean(const Graph& g, const Op& op, bool use_inputs) {
  const Tensor& x = g.tensor(op.inputs[0]);
  TF_ASSIGN_OR_RETURN(ReductionView v, ViewOf(g, op));
  TF_ASSIGN_OR_RETURN(s8_mean_params p,
                      quant::MakeMeanParams(v.dims, Dims(v.axes), TensorQuantOf(x),
                                            TensorQuantOf(g.tensor(op.outputs[0])),
                                            op.type == OpType::kQSum));
  if (auto c = Stored(g, op, use_inputs)) p.multiplier = c->multiplier[0], p.shift = c->shift[0];
  p.rounding = RoundingWord(g);
  return p;
}

Expected<s8_softmax_params> Softmax(const Graph& g, const Op& op, bool use_inputs) {
  const Tensor& x = g.tensor(op.inputs[0]);
  // The kernel runs over the innermost dim; the executor moves `axis` there first.
  std::vector<int32_t> dims = Dims(x.shape);
  if (dims.empty()) dims = {1};
  const auto axis = ir::NormalizeAxis(op.attrs_as<ir::SoftmaxAttrs>().axis,
                                      static_cast<int64_t>(dims.size()));
  if (axis) {
    const int32_t d = dims[static_cast<size_t>(*axis)];
    dims.erase(dims.begin() + *axis);
    dims.push_back(d);
  }
  TF_ASSIGN_OR_RETURN(s8_softmax_params p,
                      quant::MakeSoftmaxParams(dims, 1.0f, TensorQuantOf(x),
                                               TensorQuantOf(g.tensor(op.outputs[0]))));
  if (auto c = Stored(g, op, use_inputs)) {
    p.input_multiplier = c->multiplier[0], p.input_left_shift = c->shift[0];
    p.diff_min = -quant::CalculateInputRadius(5, c->shift[0]);  // kScaledDiffIntegerBits
  }
  return p;
}

Expected<s8_requantize_params> Requantize(const Graph& g, const Op& op, bool use_inputs) {
  const auto& a = op.attrs_as<ir::ClampAttrs>();
  const Tensor& x = g.tensor(op.inputs[0]);
  TF_ASSIGN_OR_RETURN(s8_requantize_params p,
                      quant::MakeRequantizeParams(I32(x.num_elements()), TensorQuantOf(x),
                                                  TensorQuantOf(g.tensor(op.outputs[0]))));
  p.act_min = I32(a.act_min), p.act_max = I32(a.act_max);
  if (auto c = Stored(g, op, use_inputs)) p.multiplier = c->multiplier[0], p.shift = c->shift[0];
  p.rounding = RoundingWord(g);
  return p;
}

}  // namespace

quant::TensorQuant TensorQuantOf(const Tensor& t) {
  if (!t.quant || t.quant->scale.empty()) return {};
  return {static_cast<float>(t.quant->scale[0]), I32(t.quant->zero_point[0])};
}

namespace {

// Data movement of a float32 tensor (a float model, docs/decisions.md 68): the int8 kernels
// move its bytes, so it is seen as int8 with one more, innermost dim of 4 bytes, and with a
// placeholder quantization shared by input and output (the kernels only copy).
bool Moved4(const Tensor& t) { return t.dtype == ir::DType::kFloat32; }
std::vector<int32_t> MovedDims(const Tensor& t) {
  std::vector<int32_t> d = Dims(t.shape);
  if (Moved4(t)) d.push_back(4);
  return d;
}
quant::TensorQuant MovedQuant(const Tensor& t) {
  return Moved4(t) ? quant::TensorQuant{1.0f, 0} : TensorQuantOf(t);
}

}  // namespace

size_t RequantBaseInputs(OpType type) {
  switch (type) {
    case OpType::kQConv2d:
    case OpType::kQDwConv2d:
    case OpType::kQFc:
      return 3;
    case OpType::kQAdd:
    case OpType::kQSub:
    case OpType::kQSquaredDifference:
    case OpType::kQMul:
    case OpType::kQPrelu:
    case OpType::kQBmm:
      return 2;
    case OpType::kQMean:
    case OpType::kQSum:
    case OpType::kQSoftmax:
    case OpType::kRequantize:
      return 1;
    default:
      return 0;
  }
}

bool HasRequantInputs(const Op& op) {
  const size_t base = RequantBaseInputs(op.type);
  return base > 0 && op.inputs.size() == base + 2;
}

Expected<RequantConstants> ComputeRequantConstants(const Graph& g, const Op& op) {
  auto one = [](int32_t m, int32_t s) { return RequantConstants{{m}, {s}}; };
  switch (op.type) {
    case OpType::kQConv2d: {
      TF_ASSIGN_OR_RETURN(auto r, Conv(g, op, false));
      return RequantConstants{r.multiplier, r.shift};
    }
    case OpType::kQDwConv2d: {
      TF_ASSIGN_OR_RETURN(auto r, DwConv(g, op, false));
      return RequantConstants{r.multiplier, r.shift};
    }
    case OpType::kQFc: {
      TF_ASSIGN_OR_RETURN(auto r, Fc(g, op, false));
      return RequantConstants{r.multiplier, r.shift};
    }
    case OpType::kQAdd:
    case OpType::kQSub:
    case OpType::kQSquaredDifference: {
      TF_ASSIGN_OR_RETURN(auto p, op.type == OpType::kQSquaredDifference
                                      ? SquaredDifference(g, op, false)
                                      : Add(g, op, false));
      return RequantConstants{{p.input1_multiplier, p.input2_multiplier, p.output_multiplier},
                              {p.input1_shift, p.input2_shift, p.output_shift}};
    }
    case OpType::kQMul: {
      TF_ASSIGN_OR_RETURN(auto p, Mul(g, op, false));
      return one(p.output_multiplier, p.output_shift);
    }
    case OpType::kQPrelu: {
      TF_ASSIGN_OR_RETURN(auto p, Prelu(g, op, false));
      return RequantConstants{{p.output_multiplier_1, p.output_multiplier_2},
                              {p.output_shift_1, p.output_shift_2}};
    }
    case OpType::kQBmm: {
      TF_ASSIGN_OR_RETURN(auto p, Bmm(g, op, false));
      return one(p.multiplier, p.shift);
    }
    case OpType::kQMean:
    case OpType::kQSum: {
      TF_ASSIGN_OR_RETURN(auto p, Mean(g, op, false));
      return one(p.multiplier, p.shift);
    }
    case OpType::kQSoftmax: {
      TF_ASSIGN_OR_RETURN(auto p, Softmax(g, op, false));
      return one(p.input_multiplier, p.input_left_shift);
    }
    case OpType::kRequantize: {
      TF_ASSIGN_OR_RETURN(auto p, Requantize(g, op, false));
      return one(p.multiplier, p.shift);
    }
    default:
      return Error::Internal(std::string(ir::OpTypeName(op.type)) + " has no requantization constants");
  }
}

Expected<quant::ConvKernelParams> ConvParams(const Graph& g, const Op& op) {
  return Conv(g, op, true);
}
Expected<quant::DwConvKernelParams> DwConvParams(const Graph& g, const Op& op) {
  return DwConv(g, op, true);
}
Expected<quant::FcKernelParams> FcParams(const Graph& g, const Op& op) { return Fc(g, op, true); }
Expected<s8_add_params> AddParams(const Graph& g, const Op& op) { return Add(g, op, true); }
Expected<s8_mul_params> MulParams(const Graph& g, const Op& op) { return Mul(g, op, true); }
Expected<s8_prelu_params> PreluParams(const Graph& g, const Op& op) {
  return Prelu(g, op, true);
}
Expected<s8_bmm_params> BmmParams(const Graph& g, const Op& op) { return Bmm(g, op, true); }
Expected<s8_add_params> SquaredDifferenceParams(const Graph& g, const Op& op) {
  return SquaredDifference(g, op, true);
}
Expected<s8_minmax_params> MinMaxParams(const Graph& g, const Op& op) {
  return quant::MakeMinMaxParams(Dims(g.tensor(op.inputs[0]).shape),
                                 Dims(g.tensor(op.inputs[1]).shape));
}
Expected<s8_mean_params> MeanParams(const Graph& g, const Op& op) { return Mean(g, op, true); }
Expected<s8_reduce_max_params> ReduceMaxParams(const Graph& g, const Op& op) {
  TF_ASSIGN_OR_RETURN(ReductionView v, ViewOf(g, op));
  return quant::MakeReduceMaxParams(v.dims, Dims(v.axes));
}

Expected<std::vector<int64_t>> ReductionPerm(const Graph& g, const Op& op) {
  const Tensor& x = g.tensor(op.inputs[0]);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  TF_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                      ir::NormalizeMeanDims(op.attrs_as<ir::MeanAttrs>(), rank));
  if (quant::ReductionIsOneRun(Dims(x.shape), Dims(dims))) return std::vector<int64_t>{};
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d) {
    if (!std::binary_search(dims.begin(), dims.end(), d)) perm.push_back(d);
  }
  perm.insert(perm.end(), dims.begin(), dims.end());
  return perm;
}
Expected<s8_softmax_params> SoftmaxParams(const Graph& g, const Op& op) {
  return Softmax(g, op, true);
}
Expected<s8_layernorm_params> LayerNormParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::QLayerNormAttrs>();
  const Tensor& x = g.tensor(op.inputs[0]);
  return quant::MakeLayerNormParams(Dims(x.shape), a.rms, a.eps, TensorQuantOf(x),
                                    static_cast<int32_t>(a.scale_exp),
                                    g.tensor(op.inputs[1]).num_elements());
}
Expected<s8_lstm_params> LstmParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::QLstmAttrs>();
  const Tensor& x = g.tensor(op.inputs[0]);
  const Tensor& wh = g.tensor(op.inputs[2]);
  if (a.gate_multiplier.size() != 8 || a.gate_shift.size() != 8 || x.shape.size() != 3 ||
      wh.shape.size() != 2) {
    return Error("qlstm: malformed op (attrs or operand ranks)");
  }
  s8_lstm_params p{};
  p.steps = I32(x.shape[0] * x.shape[1]);  // batch 1: [1, T, F] or [T, 1, F]
  p.in_features = I32(x.shape[2]);
  p.units = I32(wh.shape[1]);
  for (size_t i = 0; i < 8; ++i) {
    p.gate_multiplier[i] = I32(a.gate_multiplier[i]);
    p.gate_shift[i] = I32(a.gate_shift[i]);
  }
  p.hidden_multiplier = I32(a.hidden_multiplier);
  p.hidden_shift = I32(a.hidden_shift);
  p.hidden_offset = I32(a.hidden_offset);
  p.hidden_init = I32(a.hidden_init);
  p.cell_log2 = I32(a.cell_log2);
  p.cell_clip = I32(a.cell_clip);
  if (auto e = quant::detail::CheckKernelParams("qlstm", s8_lstm_check(p))) return *e;
  return p;
}
Expected<s8_lut_params> LutParams(const Graph& g, const Op& op) {
  return quant::MakeLutParams(I32(g.tensor(op.inputs[0]).num_elements()));
}
Expected<s8_requantize_params> RequantizeParams(const Graph& g, const Op& op) {
  return Requantize(g, op, true);
}

Expected<s8_pool_params> PoolParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::QPool2dAttrs>();
  const Tensor& x = g.tensor(op.inputs[0]);
  const Tensor& y = g.tensor(op.outputs[0]);
  const bool nhwc = a.layout == Layout::kNHWC;
  quant::PoolSpec s;
  s.batches = I32(x.shape[0]);
  s.in_h = I32(x.shape[nhwc ? 1 : 2]);
  s.in_w = I32(x.shape[nhwc ? 2 : 3]);
  s.channels = I32(x.shape[nhwc ? 3 : 1]);
  s.filter_h = I32(a.kernel[0]), s.filter_w = I32(a.kernel[1]);
  s.stride_h = I32(a.stride[0]), s.stride_w = I32(a.stride[1]);
  // Bottom/right padding only sets the output size (taken from y below); ceil_mode may make
  // it reach the filter size, which MakePoolParams' check is not about.
  s.padding = {I32(a.padding[0]), I32(a.padding[1]), I32(std::min(a.padding[2], a.kernel[0] - 1)),
               I32(std::min(a.padding[3], a.kernel[1] - 1))};
  TF_ASSIGN_OR_RETURN(s8_pool_params p,
                      quant::MakePoolParams(s, TensorQuantOf(x), TensorQuantOf(y)));
  p.out_h = I32(y.shape[nhwc ? 1 : 2]);
  p.out_w = I32(y.shape[nhwc ? 2 : 3]);
  p.act_min = I32(a.act_min), p.act_max = I32(a.act_max);
  return p;
}

Expected<quant::ConcatKernelParams> ConcatParams(const Graph& g, const Op& op) {
  std::vector<std::vector<int32_t>> dims;
  std::vector<quant::TensorQuant> quants;
  for (ir::TensorId t : op.inputs) {
    dims.push_back(MovedDims(g.tensor(t)));
    quants.push_back(MovedQuant(g.tensor(t)));
  }
  const int64_t rank = static_cast<int64_t>(g.tensor(op.inputs[0]).shape.size());
  const auto axis = ir::NormalizeAxis(op.attrs_as<ir::CatAttrs>().axis, rank);
  if (!axis) return Error("concat: axis out of range");
  TF_ASSIGN_OR_RETURN(
      quant::ConcatKernelParams r,
      quant::MakeConcatParams(dims, I32(*axis), quants, MovedQuant(g.tensor(op.outputs[0])),
                              quant::ConcatMode::kCopyLikeTflm));
  r.params.rounding = RoundingWord(g);
  return r;
}

Expected<s8_pad_params> PadParams(const Graph& g, const Op& op) {
  // qpad, or a float model's pad (fold-float admits the value +0.0 only: zero bytes).
  const bool q = op.type == OpType::kQPad;
  const std::vector<int64_t>& padding =
      q ? op.attrs_as<ir::QPadAttrs>().padding : op.attrs_as<ir::PadAttrs>().padding;
  const Tensor& x = g.tensor(op.inputs[0]);
  if (!q && !(Moved4(x) && op.attrs_as<ir::PadAttrs>().value == 0.0)) {
    return Error("pad: a float32 pad with the value 0 only");
  }
  if (padding.size() != 2 * x.shape.size()) return Error("pad: one (before, after) pair per dim");
  std::vector<std::pair<int32_t, int32_t>> pads;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    pads.emplace_back(I32(padding[2 * d]), I32(padding[2 * d + 1]));
  }
  if (Moved4(x)) pads.emplace_back(0, 0);
  return quant::MakePadParams(MovedDims(x), pads, MovedQuant(x),
                              MovedQuant(g.tensor(op.outputs[0])),
                              static_cast<int8_t>(q ? op.attrs_as<ir::QPadAttrs>().value : 0));
}

Expected<s8_transpose_params> TransposeParams(const Graph& g, const Op& op) {
  const Tensor& x = g.tensor(op.inputs[0]);
  std::vector<int64_t> perm = op.attrs_as<ir::TransposeAttrs>().perm;
  if (Moved4(x)) perm.push_back(static_cast<int64_t>(perm.size()));  // the bytes stay inner
  return quant::MakeTransposeParams(MovedDims(x), perm, MovedQuant(x),
                                    MovedQuant(g.tensor(op.outputs[0])));
}

Expected<s8_gather_params> GatherParams(const Graph& g, const Op& op) {
  const Tensor& x = g.tensor(op.inputs[0]);
  const int64_t axis = op.attrs_as<ir::GatherAttrs>().axis;
  const auto ax = ir::NormalizeAxis(axis, static_cast<int64_t>(x.shape.size()));
  if (!ax || x.shape.empty()) return Error("gather: axis " + std::to_string(axis) + " out of range");
  return quant::MakeGatherParams(MovedDims(x), *ax, op.attrs_as<ir::GatherAttrs>().wrap_negative,
                                 g.tensor(op.inputs[1]).num_elements());
}

Expected<s8_argmax_params> ArgMaxParams(const Graph& g, const Op& op) {
  const Tensor& x = g.tensor(op.inputs[0]);
  const auto& a = op.attrs_as<ir::ArgMaxAttrs>();
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const auto axis = ir::NormalizeAxis(a.axis, std::max<int64_t>(rank, 1));
  if (!axis) return Error("argmax: axis " + std::to_string(a.axis) + " out of range");
  return quant::MakeArgMaxParams(Dims(x.shape), *axis, a.min);
}

Expected<s8_slice_params> SliceParams(const Graph& g, const Op& op) {
  const Tensor& x = g.tensor(op.inputs[0]);
  const Tensor& y = g.tensor(op.outputs[0]);
  const auto& a = op.attrs_as<ir::SliceAttrs>();
  std::vector<int64_t> begin = a.begin, stride = a.stride;
  if (Moved4(x)) begin.push_back(0), stride.push_back(1);
  return quant::MakeSliceParams(MovedDims(x), MovedDims(y), begin, stride, MovedQuant(x),
                                MovedQuant(y));
}

Expected<quant::ResizeKernelParams> ResizeParams(const Graph& g, const Op& op) {
  const Tensor& x = g.tensor(op.inputs[0]);
  const Tensor& y = g.tensor(op.outputs[0]);
  const auto& a = op.attrs_as<ir::ResizeAttrs>();
  if (x.shape.size() != 4 || y.shape.size() != 4) return Error{"resize: needs rank-4 tensors"};
  const bool nhwc = a.layout == ir::Layout::kNHWC;
  const std::vector<int32_t> xd = Dims(x.shape), yd = Dims(y.shape);
  quant::ResizeSpec s;
  s.batches = xd[0];
  s.in_h = xd[nhwc ? 1 : 2];
  s.in_w = xd[nhwc ? 2 : 3];
  s.channels = xd[nhwc ? 3 : 1];
  s.out_h = yd[nhwc ? 1 : 2];
  s.out_w = yd[nhwc ? 2 : 3];
  s.bilinear = a.bilinear;
  s.align_corners = a.align_corners;
  s.half_pixel_centers = a.half_pixel_centers;
  s.scale_h = a.scale_h;
  s.scale_w = a.scale_w;
  if (Moved4(x)) {  // a pixel's channels as bytes: copies, so nearest neighbour only
    if (a.bilinear) return Error{"resize: bilinear float32 has no kernel (nearest only)"};
    s.channels *= 4;
  }
  return quant::MakeResizeParams(s, MovedQuant(x), MovedQuant(y));
}

Expected<s8_quantize_params> QuantizeParams(const Graph& g, const Op& op) {
  const Tensor& y = g.tensor(op.outputs[0]);
  return quant::MakeQuantizeParams(I32(y.num_elements()), TensorQuantOf(y));
}

Expected<s8_dequantize_params> DequantizeParams(const Graph& g, const Op& op) {
  const Tensor& x = g.tensor(op.inputs[0]);
  return quant::MakeDequantizeParams(I32(x.num_elements()), TensorQuantOf(x));
}

}  // namespace tinyforge::quant
