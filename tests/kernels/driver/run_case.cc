// Runs one TFLite operator case through compiler/quant + the __ref kernels.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "quant/kernel_params.h"
#include "tests/kernels/driver/case.h"

namespace tinyforge::testing {
namespace {

using quant::Activation;
using quant::TensorQuant;
using tinyforge::Error;
using tinyforge::Expected;

TensorQuant Quant(const CaseTensor& t) { return {t.scale(), t.zero_point()}; }

Expected<Activation> ParseActivation(const nlohmann::json& options) {
  const std::string a = options.value("activation", "NONE");
  if (a == "NONE") return Activation::kNone;
  if (a == "RELU") return Activation::kRelu;
  if (a == "RELU6") return Activation::kRelu6;
  if (a == "RELU_N1_TO_1") return Activation::kReluN1To1;
  return Error{"unsupported fused activation " + a};
}

quant::PaddingType ParsePadding(const nlohmann::json& options) {
  return options.value("padding", "VALID") == "SAME" ? quant::PaddingType::kSame
                                                     : quant::PaddingType::kValid;
}

RunResult Fail(std::string message) { return RunResult{std::nullopt, std::move(message)}; }

RunResult Int8Result(std::vector<int8_t> data) {
  KernelOutput out;
  out.i8 = std::move(data);
  return RunResult{std::move(out), {}};
}

// Input i, required to be present and of the given dtype.
const CaseTensor* Input(const Case& c, size_t i, const char* dtype) {
  if (i >= c.inputs.size() || !c.inputs[i] || c.inputs[i]->dtype != dtype) return nullptr;
  return &*c.inputs[i];
}

#define REQUIRE_INPUT(var, index, dtype)          \
  const CaseTensor* var = Input(c, index, dtype); \
  if (var == nullptr) return Fail(c.op + ": input " #index " missing or not " dtype)

#define TRY_PARAMS(var, expr) \
  auto var = (expr);          \
  if (!var) return Fail(var.error().message())

RunResult RunConv(const Case& c) {
  REQUIRE_INPUT(in, 0, "int8");
  REQUIRE_INPUT(w, 1, "int8");
  const CaseTensor* bias = Input(c, 2, "int32");
  const CaseTensor& out = c.outputs[0];
  TRY_PARAMS(act, ParseActivation(c.options));
  quant::ConvSpec s;
  s.batches = in->shape[0], s.in_h = in->shape[1], s.in_w = in->shape[2], s.in_c = in->shape[3];
  s.out_c = w->shape[0], s.k_h = w->shape[1], s.k_w = w->shape[2];
  s.groups = s.in_c / w->shape[3];
  s.stride_h = c.options.at("stride_h"), s.stride_w = c.options.at("stride_w");
  s.dilation_h = c.options.value("dilation_h", 1), s.dilation_w = c.options.value("dilation_w", 1);
  s.padding = quant::TflitePadding(ParsePadding(c.options), s.in_h, s.in_w, s.k_h, s.k_w,
                                   s.stride_h, s.stride_w, s.dilation_h, s.dilation_w);
  s.activation = *act;
  TRY_PARAMS(kp, quant::MakeConvParams(s, Quant(*in), w->scales, Quant(out)));
  const s8_conv_params p = kp->Bind();
  if (p.out_h != out.shape[1] || p.out_w != out.shape[2]) return Fail("conv: output size differs");
  std::vector<int8_t> y(out.NumElements());
  s8_conv__ref(&p, in->i8.data(), w->i8.data(), bias ? bias->i32.data() : nullptr, y.data(),
               nullptr);
  return Int8Result(std::move(y));
}

RunResult RunDwConv(const Case& c) {
  REQUIRE_INPUT(in, 0, "int8");
  REQUIRE_INPUT(w, 1, "int8");
  const CaseTensor* bias = Input(c, 2, "int32");
  const CaseTensor& out = c.outputs[0];
  TRY_PARAMS(act, ParseActivation(c.options));
  quant::DwConvSpec s;
  s.batches = in->shape[0], s.in_h = in->shape[1], s.in_w = in->shape[2], s.in_c = in->shape[3];
  s.k_h = w->shape[1], s.k_w = w->shape[2];
  s.depth_multiplier = w->shape[3] / s.in_c;
  s.stride_h = c.options.at("stride_h"), s.stride_w = c.options.at("stride_w");
  s.dilation_h = c.options.value("dilation_h", 1), s.dilation_w = c.options.value("dilation_w", 1);
  s.padding = quant::TflitePadding(ParsePadding(c.options), s.in_h, s.in_w, s.k_h, s.k_w,
                                   s.stride_h, s.stride_w, s.dilation_h, s.dilation_w);
  s.activation = *act;
  TRY_PARAMS(kp, quant::MakeDwConvParams(s, Quant(*in), w->scales, Quant(out)));
  const s8_dwconv_params p = kp->Bind();
  if (p.out_h != out.shape[1] || p.out_w != out.shape[2])
    return Fail("dwconv: output size differs");
  std::vector<int8_t> y(out.NumElements());
  s8_dwconv__ref(&p, in->i8.data(), w->i8.data(), bias ? bias->i32.data() : nullptr, y.data(),
                 nullptr);
  return Int8Result(std::move(y));
}

RunResult RunFc(const Case& c) {
  REQUIRE_INPUT(in, 0, "int8");
  REQUIRE_INPUT(w, 1, "int8");
  const CaseTensor* bias = Input(c, 2, "int32");
  const CaseTensor& out = c.outputs[0];
  TRY_PARAMS(act, ParseActivation(c.options));
  quant::FcSpec s;
  s.out_features = w->shape[0];
  s.in_features = w->shape[1];
  s.batches = static_cast<int32_t>(in->NumElements() / s.in_features);
  s.activation = *act;
  TRY_PARAMS(kp, quant::MakeFcParams(s, Quant(*in), w->scales, Quant(out)));
  const s8_fc_params p = kp->Bind();
  std::vector<int8_t> y(out.NumElements());
  s8_fc__ref(&p, in->i8.data(), w->i8.data(), bias ? bias->i32.data() : nullptr, y.data(), nullptr);
  return Int8Result(std::move(y));
}

RunResult RunPool(const Case& c, bool average) {
  REQUIRE_INPUT(in, 0, "int8");
  const CaseTensor& out = c.outputs[0];
  TRY_PARAMS(act, ParseActivation(c.options));
  quant::PoolSpec s;
  s.batches = in->shape[0], s.in_h = in->shape[1], s.in_w = in->shape[2];
  s.channels = in->shape[3];
  s.filter_h = c.options.at("filter_h"), s.filter_w = c.options.at("filter_w");
  s.stride_h = c.options.at("stride_h"), s.stride_w = c.options.at("stride_w");
  s.padding = quant::TflitePadding(ParsePadding(c.options), s.in_h, s.in_w, s.filter_h, s.filter_w,
                                   s.stride_h, s.stride_w, 1, 1);
  s.activation = *act;
  TRY_PARAMS(p, quant::MakePoolParams(s, Quant(*in), Quant(out)));
  if (p->out_h != out.shape[1] || p->out_w != out.shape[2])
    return Fail("pool: output size differs");
  std::vector<int8_t> y(out.NumElements());
  (average ? s8_avgpool__ref : s8_maxpool__ref)(&*p, in->i8.data(), y.data());
  return Int8Result(std::move(y));
}

RunResult RunAddMul(const Case& c, bool add) {
  REQUIRE_INPUT(a, 0, "int8");
  REQUIRE_INPUT(b, 1, "int8");
  const CaseTensor& out = c.outputs[0];
  TRY_PARAMS(act, ParseActivation(c.options));
  std::vector<int8_t> y(out.NumElements());
  if (add) {
    TRY_PARAMS(p, quant::MakeAddParams(a->shape, b->shape, Quant(*a), Quant(*b), Quant(out), *act));
    s8_add__ref(&*p, a->i8.data(), b->i8.data(), y.data());
  } else {
    TRY_PARAMS(p, quant::MakeMulParams(a->shape, b->shape, Quant(*a), Quant(*b), Quant(out), *act));
    s8_mul__ref(&*p, a->i8.data(), b->i8.data(), y.data());
  }
  return Int8Result(std::move(y));
}

RunResult RunMean(const Case& c) {
  REQUIRE_INPUT(in, 0, "int8");
  REQUIRE_INPUT(axes, 1, "int32");
  const CaseTensor& out = c.outputs[0];
  TRY_PARAMS(p, quant::MakeMeanParams(in->shape, axes->i32, Quant(*in), Quant(out)));
  std::vector<int8_t> y(out.NumElements());
  s8_mean__ref(&*p, in->i8.data(), y.data());
  return Int8Result(std::move(y));
}

RunResult RunConcat(const Case& c) {
  std::vector<std::vector<int32_t>> dims;
  std::vector<TensorQuant> quants;
  std::vector<const int8_t*> data;
  for (const auto& t : c.inputs) {
    if (!t || t->dtype != "int8") return Fail("concat: inputs must be int8");
    dims.push_back(t->shape);
    quants.push_back(Quant(*t));
    data.push_back(t->i8.data());
  }
  const CaseTensor& out = c.outputs[0];
  // A plain CONCATENATION is TFLM's byte copy; a "+requant" case has the QUANTIZE ops that
  // fed it fused in (tflite_cases.py marks it with fused_requantize).
  const quant::ConcatMode mode = c.options.value("fused_requantize", false)
                                     ? quant::ConcatMode::kRequantizeMismatched
                                     : quant::ConcatMode::kCopyLikeTflm;
  TRY_PARAMS(kp, quant::MakeConcatParams(dims, c.options.at("axis"), quants, Quant(out), mode));
  const s8_concat_params p = kp->Bind();
  std::vector<int8_t> y(out.NumElements());
  s8_concat__ref(&p, data.data(), y.data());
  return Int8Result(std::move(y));
}

RunResult RunSoftmax(const Case& c) {
  REQUIRE_INPUT(in, 0, "int8");
  const CaseTensor& out = c.outputs[0];
  TRY_PARAMS(p, quant::MakeSoftmaxParams(in->shape, c.options.value("beta", 1.0f), Quant(*in),
                                         Quant(out)));
  std::vector<int8_t> y(out.NumElements());
  s8_softmax__ref(&*p, in->i8.data(), y.data(), nullptr);
  return Int8Result(std::move(y));
}

RunResult RunLogisticTanh(const Case& c, bool logistic) {
  REQUIRE_INPUT(in, 0, "int8");
  const CaseTensor& out = c.outputs[0];
  const auto n = static_cast<int32_t>(in->NumElements());
  std::vector<int8_t> y(out.NumElements());
  if (logistic) {
    TRY_PARAMS(p, quant::MakeLogisticParams(n, Quant(*in), Quant(out)));
    s8_logistic__ref(&*p, in->i8.data(), y.data());
  } else {
    TRY_PARAMS(p, quant::MakeTanhParams(n, Quant(*in), Quant(out)));
    s8_tanh__ref(&*p, in->i8.data(), y.data());
  }
  return Int8Result(std::move(y));
}

RunResult RunPad(const Case& c) {
  REQUIRE_INPUT(in, 0, "int8");
  REQUIRE_INPUT(paddings, 1, "int32");
  const CaseTensor& out = c.outputs[0];
  std::vector<std::pair<int32_t, int32_t>> pads;
  for (size_t i = 0; i + 1 < paddings->i32.size(); i += 2) {
    pads.emplace_back(paddings->i32[i], paddings->i32[i + 1]);
  }
  std::optional<int8_t> value;
  if (const CaseTensor* v = Input(c, 2, "int8")) value = v->i8.at(0);
  TRY_PARAMS(p, quant::MakePadParams(in->shape, pads, Quant(*in), Quant(out), value));
  std::vector<int8_t> y(out.NumElements());
  s8_pad__ref(&*p, in->i8.data(), y.data());
  return Int8Result(std::move(y));
}

RunResult RunQuantize(const Case& c) {
  const CaseTensor& out = c.outputs[0];
  const auto n = static_cast<int32_t>(out.NumElements());
  std::vector<int8_t> y(n);
  if (const CaseTensor* in = Input(c, 0, "float32")) {
    TRY_PARAMS(p, quant::MakeQuantizeParams(n, Quant(out)));
    s8_quantize__ref(&*p, in->f32.data(), y.data());
  } else if (const CaseTensor* in8 = Input(c, 0, "int8")) {
    TRY_PARAMS(p, quant::MakeRequantizeParams(n, Quant(*in8), Quant(out)));
    s8_requantize__ref(&*p, in8->i8.data(), y.data());
  } else {
    return Fail("quantize: input must be float32 or int8");
  }
  return Int8Result(std::move(y));
}

RunResult RunRelu(const Case& c, Activation activation) {
  REQUIRE_INPUT(in, 0, "int8");
  const CaseTensor& out = c.outputs[0];
  const auto n = static_cast<int32_t>(in->NumElements());
  TRY_PARAMS(p, quant::MakeReluParams(n, activation, Quant(*in), Quant(out)));
  std::vector<int8_t> y(n);
  s8_requantize__ref(&*p, in->i8.data(), y.data());
  return Int8Result(std::move(y));
}

RunResult RunDequantize(const Case& c) {
  REQUIRE_INPUT(in, 0, "int8");
  const auto n = static_cast<int32_t>(in->NumElements());
  TRY_PARAMS(p, quant::MakeDequantizeParams(n, Quant(*in)));
  KernelOutput out;
  out.f32.resize(n);
  s8_dequantize__ref(&*p, in->i8.data(), out.f32.data());
  return RunResult{std::move(out), {}};
}

}  // namespace

RunResult RunCase(const Case& c) {
  if (c.outputs.size() != 1) return Fail("case must have exactly one output");
  const std::string& op = c.op;
  if (op == "CONV_2D") return RunConv(c);
  if (op == "DEPTHWISE_CONV_2D") return RunDwConv(c);
  if (op == "FULLY_CONNECTED") return RunFc(c);
  if (op == "AVERAGE_POOL_2D") return RunPool(c, /*average=*/true);
  if (op == "MAX_POOL_2D") return RunPool(c, /*average=*/false);
  if (op == "ADD") return RunAddMul(c, /*add=*/true);
  if (op == "MUL") return RunAddMul(c, /*add=*/false);
  if (op == "MEAN") return RunMean(c);
  if (op == "CONCATENATION") return RunConcat(c);
  if (op == "SOFTMAX") return RunSoftmax(c);
  if (op == "LOGISTIC") return RunLogisticTanh(c, /*logistic=*/true);
  if (op == "TANH") return RunLogisticTanh(c, /*logistic=*/false);
  if (op == "PAD" || op == "PADV2") return RunPad(c);
  if (op == "QUANTIZE") return RunQuantize(c);
  if (op == "DEQUANTIZE") return RunDequantize(c);
  if (op == "RELU") return RunRelu(c, Activation::kRelu);
  if (op == "RELU6") return RunRelu(c, Activation::kRelu6);
  return Fail("no kernel for op " + op);
}

}  // namespace tinyforge::testing
