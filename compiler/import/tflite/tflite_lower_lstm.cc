// UNIDIRECTIONAL_SEQUENCE_LSTM, int8x8_16 (int8 activations and weights, int16 cell state):
// one qlstm over the whole sequence (kernels/lstm/lstm.h). The integer parameters are what
// TensorFlow Lite's unidirectional_sequence_lstm.cc Prepare computes
// (PopulateQuantizedLstmParams8x8_16, PopulatePrecomputedZPTimesWeightsWithBias), in its
// float / double arithmetic. The plain LSTM only: CIFG, peephole, projection and layer-norm
// LSTMs, float and hybrid forms and batches above 1 are refused by name.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "import/tflite/tflite_lower_internal.h"
#include "quant/op_params.h"
#include "quant/quant_util.h"

namespace tinyforge::import::tflite::internal {
namespace {

// TFLite's LSTM input slots (lstm_shared.h, "full" kernel).
enum : size_t {
  kInput = 0,
  kInputToInput = 1,   // 1..4: input-to-{input, forget, cell, output} weights
  kRecurrentToInput = 5,  // 5..8: recurrent-to-{input, forget, cell, output} weights
  kCellToInput = 9,    // 9..11: peephole
  kInputGateBias = 12,  // 12..15: {input, forget, cell, output} gate bias
  kProjectionWeights = 16,
  kProjectionBias = 17,
  kOutputState = 18,
  kCellState = 19,
  kInputLayerNorm = 20,  // 20..23: layer norm coefficients
};

std::vector<int8_t> Int8Data(const TfTensor& t) {
  std::vector<int8_t> v(t.data->size());
  std::memcpy(v.data(), t.data->data(), v.size());
  return v;
}

// tflite::CheckedLog2 (float arithmetic).
bool CheckedLog2(float x, int* log2_result) {
  const float x_log2 = std::log(x) * (1.0f / std::log(2.0f));
  const float x_log2_rounded = std::round(x_log2);
  const float x_log2_fractional_part = x_log2 - x_log2_rounded;
  *log2_result = static_cast<int>(x_log2_rounded);
  return std::abs(x_log2_fractional_part) < 1e-3f;
}

}  // namespace

Status LowerSequenceLstm(Lowering& l) {
  TF_RETURN_IF_ERROR(l.ExpectOptions(Options::UnidirectionalSequenceLSTMOptions, false));
  const TfOp& op = l.op();
  const TfOptions& o = op.options;
  if (op.inputs.size() != 20 && op.inputs.size() != 24) {
    return l.Fail("inputs: takes 20 or 24 inputs, got " + std::to_string(op.inputs.size()));
  }
  if (op.outputs.size() != 1) {
    return l.Fail("outputs: takes 1 output, got " + std::to_string(op.outputs.size()));
  }
  auto present = [&](size_t i) { return l.In(i) != nullptr; };
  if (!present(kInputToInput) || !present(kRecurrentToInput)) {
    return l.Fail("CIFG LSTM (no input gate weights) is not supported");
  }
  for (size_t i = kCellToInput; i < kCellToInput + 3; ++i) {
    if (present(i)) return l.Fail("peephole LSTM (cell_to_*_weights) is not supported");
  }
  if (present(kProjectionWeights) || present(kProjectionBias)) {
    return l.Fail("projection LSTM (projection_weights) is not supported");
  }
  for (size_t i = kInputLayerNorm; i < op.inputs.size(); ++i) {
    if (present(i)) return l.Fail("layer-norm LSTM (*_layer_norm_coefficients) is not supported");
  }
  if (o.asymmetric_quantize_inputs) {
    return l.Fail("asymmetric_quantize_inputs: hybrid (float input) LSTM is not supported");
  }
  if (o.diagonal_recurrent_tensors) {
    return l.Fail("diagonal_recurrent_tensors: diagonal recurrent weights are not supported");
  }
  if (o.activation != static_cast<int8_t>(TfActivation::kTanh)) {
    return l.Fail("fused_activation_function: " + TfActivationName(o.activation) +
                  " is not supported (the int8 LSTM computes TANH)");
  }
  if (!(o.cell_clip >= 0.0f)) {
    return l.Fail("cell_clip: " + std::to_string(o.cell_clip) + ", must be >= 0");
  }
  const TfTensor& x = *l.In(kInput);
  if (x.type != static_cast<int8_t>(TfType::kInt8)) {
    return l.Fail("inputs[0]: type " + TfTypeName(x.type) +
                  ": only the int8 LSTM (int8x8_16, full integer quantization) is supported");
  }
  TF_RETURN_IF_ERROR(l.ExpectAct(&x, "inputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectRank(&x, "inputs[0]", 3));
  const int32_t batch = o.time_major ? x.shape[1] : x.shape[0];
  if (batch != 1) {
    return l.Fail("inputs[0]: shape " + ShapeText(x.shape) + ": batch " + std::to_string(batch) +
                  ", only batch 1 is supported");
  }
  const int32_t n_input = x.shape[2];
  const TfTensor* w4 = l.In(kInputToInput + 3);
  if (w4->shape.size() != 2) return l.Fail("inputs[4]: input_to_output_weights must be rank 2");
  const int32_t n_cell = w4->shape[0];
  // Weights: int8 constants, one scale, zero point 0, [H, F] and [H, H].
  std::vector<int8_t> wx, wh;
  std::vector<float> w_scale(8);
  for (size_t k = 0; k < 8; ++k) {
    const size_t i = kInputToInput + k;
    const TfTensor* w = l.In(i);
    const std::string field = "inputs[" + std::to_string(i) + "]";
    TF_RETURN_IF_ERROR(l.ExpectConstant(w, field));
    const std::vector<int32_t> want = {n_cell, k < 4 ? n_input : n_cell};
    if (w->type != static_cast<int8_t>(TfType::kInt8) || !w->quant ||
        w->quant->per_channel() || w->quant->zero_point[0] != 0 || w->shape != want) {
      return l.Fail(field + ": weights must be int8 " + ShapeText(want) +
                    " with one scale and zero point 0, got " + TfTypeName(w->type) +
                    ShapeText(w->shape));
    }
    w_scale[k] = w->quant->scale[0];
    const std::vector<int8_t> v = Int8Data(*w);
    (k < 4 ? wx : wh).insert((k < 4 ? wx : wh).end(), v.begin(), v.end());
  }
  std::vector<int32_t> bias(8 * static_cast<size_t>(n_cell), 0);
  for (size_t k = 0; k < 4; ++k) {
    const size_t i = kInputGateBias + k;
    const TfTensor* b = l.In(i);
    const std::string field = "inputs[" + std::to_string(i) + "]";
    if (!b) return l.Fail(field + ": the gate bias is missing");
    TF_RETURN_IF_ERROR(l.ExpectConstant(b, field));
    if (b->type != static_cast<int8_t>(TfType::kInt32) || b->shape != std::vector<int32_t>{n_cell}) {
      return l.Fail(field + ": gate bias must be int32 [" + std::to_string(n_cell) + "]");
    }
    const std::vector<int64_t> v = IntValues(*b);
    for (int32_t r = 0; r < n_cell; ++r) bias[k * n_cell + r] = static_cast<int32_t>(v[r]);
  }
  // The state: variable tensors (TFLite's output_state int8, cell_state int16).
  const TfTensor* hs = l.In(kOutputState);
  const TfTensor* cs = l.In(kCellState);
  if (!hs || !hs->is_variable || hs->type != static_cast<int8_t>(TfType::kInt8) || !hs->quant ||
      hs->quant->per_channel() || hs->num_elements() != n_cell) {
    return l.Fail("inputs[18]: output_state must be an int8 variable of " +
                  std::to_string(n_cell) + " elements with one scale");
  }
  if (!cs || !cs->is_variable || cs->type != static_cast<int8_t>(TfType::kInt16) || !cs->quant ||
      cs->quant->per_channel() || cs->num_elements() != n_cell) {
    return l.Fail("inputs[19]: cell_state must be an int16 variable of " +
                  std::to_string(n_cell) + " elements with one scale");
  }
  for (const TfTensor* s : {hs, cs}) {
    if (s->is_constant()) return l.Fail("an LSTM state with initial data is not supported");
  }
  int cell_log2 = 0;
  const float cell_scale = cs->quant->scale[0];
  if (!CheckedLog2(cell_scale, &cell_log2) || cell_log2 < -15 || cell_log2 > -9) {
    return l.Fail("inputs[19]: cell_state scale " + std::to_string(cell_scale) +
                  " must be a power of two in [2^-15, 2^-9]");
  }
  if (op.intermediates.size() != 5) {
    return l.Fail("intermediates: the int8 LSTM has 5, got " +
                  std::to_string(op.intermediates.size()));
  }
  const TfTensor& hidden = l.model().tensors[static_cast<size_t>(op.intermediates[4])];
  if (!hidden.quant || hidden.quant->per_channel() || hidden.quant->zero_point[0] < -128 ||
      hidden.quant->zero_point[0] > 127) {
    return l.Fail("intermediates[4]: the hidden state needs one int8 scale and zero point");
  }
  const TfTensor& y = *l.Out(0);
  TF_RETURN_IF_ERROR(l.ExpectAct(&y, "outputs[0]"));
  TF_RETURN_IF_ERROR(l.ExpectOutputShape({x.shape[0], x.shape[1], n_cell}));

  // Effective scales, as TFLite computes them (float; the hidden one in double).
  const float input_scale = x.quant->scale[0];
  const float output_state_scale = hs->quant->scale[0];
  const float gate_scale = static_cast<float>(std::pow(2, -12));  // Q3.12 gates
  ir::QLstmAttrs a;
  for (size_t k = 0; k < 8; ++k) {
    const float in_scale = k < 4 ? input_scale : output_state_scale;
    const float effective = w_scale[k] * in_scale / gate_scale;
    const quant::QuantizedMultiplier m = quant::QuantizeMultiplier(effective);
    a.gate_multiplier.push_back(m.multiplier);
    a.gate_shift.push_back(m.shift);
  }
  const float hidden_scale = static_cast<float>(
      std::pow(2, -15) / static_cast<double>(hidden.quant->scale[0]) * std::pow(2, -15));
  const quant::QuantizedMultiplier hm = quant::QuantizeMultiplier(hidden_scale);
  a.hidden_multiplier = hm.multiplier;
  a.hidden_shift = hm.shift;
  a.hidden_offset = hidden.quant->zero_point[0];
  a.hidden_init = hs->quant->zero_point[0];
  a.cell_log2 = cell_log2;
  a.cell_clip = o.cell_clip > 0.0f
                    ? static_cast<int16_t>(std::min(
                          std::max(o.cell_clip / cell_scale, -32768.0f), 32767.0f))
                    : 0;
  // Zero points folded into the biases (int32 wrap-around, as TFLite's int32 sums).
  const int32_t x_zp = static_cast<int32_t>(x.quant->zero_point[0]);
  const int32_t h_zp = static_cast<int32_t>(hs->quant->zero_point[0]);
  for (int32_t row = 0; row < 4 * n_cell; ++row) {
    int32_t sx = 0, sh = 0;
    for (int32_t c = 0; c < n_input; ++c) sx += wx[static_cast<size_t>(row * n_input + c)];
    for (int32_t c = 0; c < n_cell; ++c) sh += wh[static_cast<size_t>(row * n_cell + c)];
    int32_t& bx = bias[static_cast<size_t>(row)];
    bx = static_cast<int32_t>(static_cast<uint32_t>(bx) + static_cast<uint32_t>(-x_zp * sx));
    bias[static_cast<size_t>(4 * n_cell + row)] = -h_zp * sh;
  }

  auto add_const = [&](const std::string& name, std::vector<int64_t> shape, ir::DType dtype,
                       std::vector<uint8_t> bytes) {
    ir::Tensor t;
    t.name = l.UniqueName(name);
    t.shape = std::move(shape);
    t.dtype = dtype;
    t.data = std::move(bytes);
    if (dtype == ir::DType::kInt8) t.quant = ir::PerTensorQuant(1.0, 0, -128, 127);
    return l.graph().AddTensor(std::move(t));
  };
  auto bytes_of = [](const auto& v) {
    std::vector<uint8_t> b(v.size() * sizeof(v[0]));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  const ir::TensorId twx =
      add_const("lstm.w_x", {4 * n_cell, n_input}, ir::DType::kInt8, bytes_of(wx));
  const ir::TensorId twh = add_const("lstm.w_h", {4 * n_cell, n_cell}, ir::DType::kInt8, bytes_of(wh));
  std::vector<uint8_t> bias_bytes(bias.size() * 4);
  for (size_t i = 0; i < bias.size(); ++i) {
    const uint32_t v = static_cast<uint32_t>(bias[i]);
    for (int b = 0; b < 4; ++b) bias_bytes[4 * i + b] = static_cast<uint8_t>(v >> (8 * b));
  }
  const ir::TensorId tb = add_const("lstm.bias", {8 * n_cell}, ir::DType::kInt32, bias_bytes);
  ir::Op& q = l.AddOp(ir::OpType::kQLstm, {l.Tensor(l.InIndex(kInput)), twx, twh, tb},
                      {l.Tensor(op.outputs[0])}, a);
  auto p = quant::LstmParams(l.graph(), q);
  if (!p.ok()) return l.Fail(p.error().message());
  return OkStatus();
}

}  // namespace tinyforge::import::tflite::internal
