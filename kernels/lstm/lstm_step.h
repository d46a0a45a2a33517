// The LSTM sequence loop shared by every lstm variant (kernels/lstm/lstm.h): a variant
// supplies only the gate matmul, `GateMatmul(w, x, n, rows, bias, multiplier, shift, gate)`
// adding clamp16(rq(bias[r] + w[r] . x)) to gate[r] with int16 saturation (TFLite's
// MatrixBatchVectorMultiplyAccumulate into int16), and everything else is this code.
#ifndef TINYFORGE_KERNELS_LSTM_LSTM_STEP_H_
#define TINYFORGE_KERNELS_LSTM_LSTM_STEP_H_

#include <cstdint>

#include "kernels/common/fixed_point.h"
#include "kernels/lstm/lstm.h"
#include "kernels/lstm/lstm_math.h"

namespace tinyforge::lstm {

// One requantized gate row added to the gate's int16 value (saturating).
inline int16_t AccumulateGate(int32_t acc, int32_t multiplier, int32_t shift, int16_t gate) {
  const int32_t v = fx::MultiplyByQuantizedMultiplier(acc, multiplier, shift);
  return fx16::Sat(fx::WrapAdd(v, gate));
}

template <class GateMatmul>
inline void RunSequence(const s8_lstm_params& p, const int8_t* input, const int8_t* w_x,
                        const int8_t* w_h, const int32_t* bias, int8_t* output, void* scratch,
                        GateMatmul gate_matmul) {
  const int32_t H = p.units;
  const int32_t F = p.in_features;
  int16_t* cell = static_cast<int16_t*>(scratch);
  int16_t* gates = cell + H;  // input, forget, cell, output: H each
  int8_t* hidden = reinterpret_cast<int8_t*>(gates + 4 * H);
  for (int32_t r = 0; r < H; ++r) {
    cell[r] = 0;
    hidden[r] = static_cast<int8_t>(p.hidden_init);
  }
  const int tanh_bits = 15 + p.cell_log2;  // in [0, 6]
  const int cell_shift = 30 + p.cell_log2;
  for (int32_t t = 0; t < p.steps; ++t) {
    const int8_t* x = input + t * F;
    for (int g = 0; g < 4; ++g) {
      int16_t* gate = gates + g * H;
      for (int32_t r = 0; r < H; ++r) gate[r] = 0;
      gate_matmul(w_x + g * H * F, x, F, H, bias + g * H, p.gate_multiplier[g], p.gate_shift[g],
                  gate);
      gate_matmul(w_h + g * H * H, hidden, H, H, bias + (4 + g) * H, p.gate_multiplier[4 + g],
                  p.gate_shift[4 + g], gate);
      for (int32_t r = 0; r < H; ++r) {
        gate[r] = g == 2 ? fx16::Tanh<3>(gate[r]) : fx16::Logistic<3>(gate[r]);
      }
    }
    const int16_t* in_gate = gates;
    const int16_t* forget_gate = gates + H;
    const int16_t* cell_gate = gates + 2 * H;
    const int16_t* out_gate = gates + 3 * H;
    int8_t* y = output + t * H;
    for (int32_t r = 0; r < H; ++r) {
      const int32_t kept = fx::RoundingDivideByPOT(int32_t{forget_gate[r]} * cell[r], 15);
      const int32_t added =
          fx::RoundingDivideByPOT(int32_t{in_gate[r]} * cell_gate[r], cell_shift);
      int32_t c = fx16::Sat(static_cast<int16_t>(kept) + static_cast<int16_t>(added));
      if (p.cell_clip > 0) c = fx::Clamp(c, -p.cell_clip, p.cell_clip);
      cell[r] = static_cast<int16_t>(c);
      const int16_t th = fx16::TanhQ(tanh_bits, cell[r]);
      int32_t h = fx::MultiplyByQuantizedMultiplier(int32_t{out_gate[r]} * th,
                                                    p.hidden_multiplier, p.hidden_shift);
      h = fx::Clamp(fx::WrapAdd(h, p.hidden_offset), -128, 127);
      y[r] = static_cast<int8_t>(h);
    }
    for (int32_t r = 0; r < H; ++r) hidden[r] = y[r];
  }
}

}  // namespace tinyforge::lstm

#endif  // TINYFORGE_KERNELS_LSTM_LSTM_STEP_H_
