#include "quant/op_params.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <tuple>

#include "ir/shape_inference.h"
#include "kernels/f32/f32_limits.h"
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

int32_t I32(int64_t v) { return static_cast<int32_t>(v); }

std::vector<int32_t> Dims(const ir::Shape& s) {
  std::vector<int32_t> d;
  for (int64_t v : s) d.push_back(I32(v));
  return d;
}

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

Expected<f32_unary_params> F32UnaryParams(const Graph& g, const Op& op) {
  const f32_unary_params p{I32(g.tensor(op.inputs[0]).num_elements()),
                           static_cast<int32_t>(op.attrs_as<ir::FloatFnAttrs>().fn)};
  if (const char* why = f32_unary_check(p)) return Error(std::string("unary: ") + why);
  return p;
}

Expected<f32_binary_params> F32BinaryParams(const Graph& g, const Op& op) {
  TF_ASSIGN_OR_RETURN(s8_broadcast_shape s,
                      quant::MakeBroadcastShape(Dims(g.tensor(op.inputs[0]).shape),
                                                Dims(g.tensor(op.inputs[1]).shape)));
  const f32_binary_params p{s, static_cast<int32_t>(op.attrs_as<ir::FloatFnAttrs>().fn)};
  if (const char* why = f32_binary_check(p)) return Error(std::string("binary: ") + why);
  return p;
}

Expected<f32_cumsum_params> F32CumsumParams(const Graph& g, const Op& op) {
  const ir::Shape& s = g.tensor(op.inputs[0]).shape;
  const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(s.size()));
  const auto axis = ir::NormalizeAxis(op.attrs_as<ir::CumsumAttrs>().axis, rank);
  if (!axis) return Error("cumsum: axis out of range");
  int64_t outer = 1, length = 1, inner = 1;
  for (size_t d = 0; d < s.size(); ++d) {
    const int64_t a = static_cast<int64_t>(d);
    (a < *axis ? outer : a == *axis ? length : inner) *= s[d];
  }
  const f32_cumsum_params p{I32(outer), I32(length), I32(inner)};
  if (const char* why = f32_cumsum_check(p)) return Error(std::string("cumsum: ") + why);
  return p;
}

// Float model layers (fold-float): geometry in the kernels' NHWC terms whatever the op's
// layout (the executor transposes an NCHW op's data), the clamp as float32.
Expected<f32_conv_params> F32ConvParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::FConv2dAttrs>();
  const bool nhwc = a.layout == Layout::kNHWC;
  const ir::Shape& x = g.tensor(op.inputs[0]).shape;
  const ir::Shape& w = g.tensor(op.inputs[1]).shape;
  const ir::Shape& y = g.tensor(op.outputs[0]).shape;
  if (x.size() != 4 || w.size() != 4 || y.size() != 4) {
    return Error(std::string(ir::OpTypeName(op.type)) + ": needs rank-4 x, w and y");
  }
  f32_conv_params p{};
  p.batches = I32(x[0]);
  p.in_h = I32(x[nhwc ? 1 : 2]), p.in_w = I32(x[nhwc ? 2 : 3]), p.in_c = I32(x[nhwc ? 3 : 1]);
  p.out_h = I32(y[nhwc ? 1 : 2]), p.out_w = I32(y[nhwc ? 2 : 3]), p.out_c = I32(y[nhwc ? 3 : 1]);
  // OHWI / OIHW for fconv2d, 1HWC / [C*m,1,kh,kw] for fdwconv2d: kh, kw at the same places.
  p.k_h = I32(w[nhwc ? 1 : 2]), p.k_w = I32(w[nhwc ? 2 : 3]);
  p.stride_h = I32(a.stride[0]), p.stride_w = I32(a.stride[1]);
  p.dilation_h = I32(a.dilation[0]), p.dilation_w = I32(a.dilation[1]);
  p.pad_top = I32(a.padding[0]), p.pad_left = I32(a.padding[1]);
  p.act_min = static_cast<float>(a.act_min), p.act_max = static_cast<float>(a.act_max);
  const bool dw = op.type == OpType::kFDwConv2d;
  if (const char* why = dw ? f32_dwconv_check(p) : f32_conv_check(p)) {
    return Error(std::string(ir::OpTypeName(op.type)) + ": " + why);
  }
  return p;
}

Expected<f32_fc_params> F32FcParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::FFcAttrs>();
  const ir::Tensor& x = g.tensor(op.inputs[0]);
  const ir::Shape& w = g.tensor(op.inputs[1]).shape;
  if (w.size() != 2 || x.shape.empty() || w[1] == 0) return Error("ffc: needs w [out, in]");
  f32_fc_params p{};
  p.batches = I32(x.num_elements() / w[1]);
  p.in_features = I32(w[1]);
  p.out_features = I32(w[0]);
  p.act_min = static_cast<float>(a.act_min), p.act_max = static_cast<float>(a.act_max);
  if (const char* why = f32_fc_check(p)) return Error(std::string("ffc: ") + why);
  return p;
}

Expected<f32_pool_params> F32PoolParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::FPool2dAttrs>();
  const bool nhwc = a.layout == Layout::kNHWC;
  const ir::Shape& x = g.tensor(op.inputs[0]).shape;
  const ir::Shape& y = g.tensor(op.outputs[0]).shape;
  if (x.size() != 4 || y.size() != 4) {
    return Error(std::string(ir::OpTypeName(op.type)) + ": needs rank-4 x and y");
  }
  f32_pool_params p{};
  p.batches = I32(x[0]);
  p.in_h = I32(x[nhwc ? 1 : 2]), p.in_w = I32(x[nhwc ? 2 : 3]), p.channels = I32(x[nhwc ? 3 : 1]);
  p.out_h = I32(y[nhwc ? 1 : 2]), p.out_w = I32(y[nhwc ? 2 : 3]);
  p.filter_h = I32(a.kernel[0]), p.filter_w = I32(a.kernel[1]);
  p.stride_h = I32(a.stride[0]), p.stride_w = I32(a.stride[1]);
  p.pad_top = I32(a.padding[0]), p.pad_left = I32(a.padding[1]);
  if (const char* why = f32_pool_check(p)) {
    return Error(std::string(ir::OpTypeName(op.type)) + ": " + why);
  }
  return p;
}

// A float model's other ops (fold-float, docs/decisions.md 68).
Expected<f32_reduce_params> F32ReduceParams(const Graph& g, const Op& op) {
  TF_ASSIGN_OR_RETURN(ReductionView v, ViewOf(g, op));
  TF_ASSIGN_OR_RETURN(s8_reduce_max_params r, quant::MakeReduceMaxParams(v.dims, Dims(v.axes)));
  const int32_t kind = op.type == OpType::kSum ? 0 : op.type == OpType::kMean ? 1 : 2;
  const f32_reduce_params p{r.outer, r.reduce_size, r.inner, kind};
  if (const char* why = f32_reduce_check(p)) {
    return Error(std::string(ir::OpTypeName(op.type)) + ": " + why);
  }
  return p;
}

// x viewed as [outer, length, inner] around `axis` (normalized; rank 0 is one element).
static Expected<std::array<int64_t, 3>> AroundAxis(const ir::Shape& s, int64_t axis,
                                                   const char* what) {
  const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(s.size()));
  const auto a = ir::NormalizeAxis(axis, rank);
  if (!a) return Error(std::string(what) + ": axis out of range");
  std::array<int64_t, 3> v{1, 1, 1};
  for (size_t d = 0; d < s.size(); ++d) {
    const int64_t i = static_cast<int64_t>(d);
    v[i < *a ? 0 : i == *a ? 1 : 2] *= s[d];
  }
  return v;
}

Expected<f32_softmax_params> F32SoftmaxParams(const Graph& g, const Op& op) {
  TF_ASSIGN_OR_RETURN(auto v, AroundAxis(g.tensor(op.inputs[0]).shape,
                                         op.attrs_as<ir::SoftmaxAttrs>().axis, "softmax"));
  const f32_softmax_params p{I32(v[0]), I32(v[1]), I32(v[2])};
  if (const char* why = f32_softmax_check(p)) return Error(std::string("softmax: ") + why);
  return p;
}

Expected<f32_argmax_params> F32ArgMaxParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::ArgMaxAttrs>();
  TF_ASSIGN_OR_RETURN(auto v, AroundAxis(g.tensor(op.inputs[0]).shape, a.axis, "argmax"));
  const f32_argmax_params p{I32(v[0]), I32(v[1]), I32(v[2]), a.min ? 1 : 0};
  if (const char* why = f32_argmax_check(p)) return Error(std::string("argmax: ") + why);
  return p;
}

Expected<f32_layernorm_params> F32LayerNormParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::LayerNormAttrs>();
  const Tensor& x = g.tensor(op.inputs[0]);
  if (x.shape.empty() || x.shape.back() == 0) return Error("layer_norm: needs a last dim");
  const int64_t depth = x.shape.back();
  const f32_layernorm_params p{I32(x.num_elements() / depth), I32(depth),
                               static_cast<float>(a.eps), a.rms ? 1 : 0};
  if (const char* why = f32_layernorm_check(p)) return Error(std::string("layer_norm: ") + why);
  return p;
}

Expected<F32ResizeKernelParams> F32ResizeParams(const Graph& g, const Op& op) {
  const auto& a = op.attrs_as<ir::ResizeAttrs>();
  const ir::Shape& x = g.tensor(op.inputs[0]).shape;
  const ir::Shape& y = g.tensor(op.outputs[0]).shape;
  if (x.size() != 4 || y.size() != 4) return Error{"resize: needs rank-4 tensors"};
  const bool nhwc = a.layout == ir::Layout::kNHWC;
  F32ResizeKernelParams r;
  f32_resize_params& p = r.params;
  p.batches = I32(x[0]);
  p.input_h = I32(x[nhwc ? 1 : 2]), p.input_w = I32(x[nhwc ? 2 : 3]);
  p.channels = I32(x[nhwc ? 3 : 1]);
  p.output_h = I32(y[nhwc ? 1 : 2]), p.output_w = I32(y[nhwc ? 2 : 3]);
  if (const char* why = f32_resize_check(p)) return Error(std::string("resize: ") + why);
  for (const auto& [in, out, scale] : {std::tuple{p.input_h, p.output_h, a.scale_h},
                                       std::tuple{p.input_w, p.output_w, a.scale_w}}) {
    for (const quant::ResizeTap& t : quant::ResizeFloatTaps(in, out, scale, a.bilinear,
                                                            a.align_corners,
                                                            a.half_pixel_centers)) {
      int32_t bits;
      std::memcpy(&bits, &t.w, sizeof bits);
      r.table.insert(r.table.end(), {t.lo, t.hi, bits});
    }
  }
  if (const char* why = f32_resize_check_table(p, r.table.data())) {
    return Error(std::string("resize: ") + why);
  }
  return r;
}

Expected<f32_bmm_params> F32BmmParams(const Graph& g, const Op& op) {
  const ir::Shape& a = g.tensor(op.inputs[0]).shape;
  const ir::Shape& b = g.tensor(op.inputs[1]).shape;
  const ir::Shape& y = g.tensor(op.outputs[0]).shape;
  if (a.size() < 2 || b.size() < 2 || y.size() < 2) {
    return Error("matmul: needs operands of rank 2 or more");
  }
  auto batch = [](const ir::Shape& s) {
    int64_t n = 1;
    for (size_t d = 0; d + 2 < s.size(); ++d) n *= s[d];
    return n;
  };
  const int64_t n = batch(y), na = batch(a), nb = batch(b);
  if ((na != n && na != 1) || (nb != n && nb != 1)) {
    return Error("matmul: each operand must hold all of the batch or one matrix (a batch "
                 "broadcast across several dims has no float kernel)");
  }
  const f32_bmm_params p{I32(n), I32(a[a.size() - 2]), I32(a.back()), I32(b.back()),
                         na == n ? 0 : 1, nb == n ? 0 : 1};
  if (const char* why = f32_bmm_check(p)) return Error(std::string("matmul: ") + why);
  return p;
}

}  // namespace tinyforge::quant
