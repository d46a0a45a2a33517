// UNIDIRECTIONAL_SEQUENCE_LSTM, int8x8_16: int8 input, weights and hidden state, int16 gates
// and cell state, over a whole sequence in one call. Numerics: TensorFlow Lite's integer
// LSTM (lstm_eval.cc EvalInteger8x8_16 with the portable tensor_utils; TFLite Micro's
// lstm_eval computes the same), for the plain LSTM: no CIFG, peephole, projection or layer
// norm (docs/lowered-ops.md `qlstm`). Per step t, for gate g in (input, forget, cell, output):
//   a    = clamp16(rq(bias_x[g] + W_x[g] . x_t, gate g))             (rq: double rounding)
//   z_g  = clamp16(a + rq(bias_h[g] + W_h[g] . h_{t-1}, gate 4 + g))  Q3.12
//   i, f, o = sigmoid(z) and g = tanh(z): gemmlowp's int16 fixed point, Q0.15 out
//   c_t  = clip(sat16(rdiv(f * c_{t-1}, 15) + rdiv(i * g, 30 + cell_log2)))
//   h_t  = clamp8(rq(o * tanh_{15 + cell_log2}(c_t), hidden) + hidden_offset)
// with the input and hidden zero points folded into the biases at compile time. The state
// starts at h = hidden_init (the zero point: real 0), c = 0 on every call, as TFLite's
// variable tensors after a reset; y_t = h_t.
//
// Layouts (dense, C order):
//   input   [steps, in_features]      int8 (batch 1: [1, T, F] and time-major [T, 1, F])
//   w_x     [4 * units, in_features]  int8, gates in the order input, forget, cell, output
//   w_h     [4 * units, units]        int8, same gate order
//   bias    [8 * units]               int32: the four input-side, then the four recurrent
//   output  [steps, units]            int8
//   scratch kLstmScratchBytes(units) bytes, 4-byte aligned: the state and the gates
#ifndef TINYFORGE_KERNELS_LSTM_LSTM_H_
#define TINYFORGE_KERNELS_LSTM_LSTM_H_

#include <cstdint>

struct s8_lstm_params {
  int32_t steps;        // T >= 1
  int32_t in_features;  // F >= 1
  int32_t units;        // H >= 1
  // Requantization of the eight gate matmuls to Q3.12: input-side i, f, g, o, then
  // recurrent-side i, f, g, o; multiplier * 2^(shift - 31).
  int32_t gate_multiplier[8];
  int32_t gate_shift[8];
  // o * tanh(c) (Q0.30) to the hidden state's int8: multiplier * 2^(shift - 31) + offset.
  int32_t hidden_multiplier;
  int32_t hidden_shift;
  int32_t hidden_offset;  // TFLite's sign convention (see the importer), in [-128, 127]
  int32_t hidden_init;    // h_{-1}: the hidden state's zero point
  int32_t cell_log2;      // the cell state's scale is 2^cell_log2, in [-15, -9]
  int32_t cell_clip;      // 0: none; else |c| <= cell_clip, in [1, 32767]
};

// Scratch bytes of every variant: c (int16), the four gates (int16), h (int8).
#define S8_LSTM_SCRATCH_BYTES(units) (10 * (units) + (units) + 4)

extern "C" {
void s8_lstm__ref(const s8_lstm_params* params, const int8_t* input, const int8_t* w_x,
                  const int8_t* w_h, const int32_t* bias, int8_t* output, void* scratch);
// Built for DSP cores only (kernels/common/isa.h TF_HAVE_DSP): the gate matmuls on SMLAD.
void s8_lstm__dsp(const s8_lstm_params* params, const int8_t* input, const int8_t* w_x,
                  const int8_t* w_h, const int32_t* bias, int8_t* output, void* scratch);
// Built for MVE cores only (TF_HAVE_MVE): the gate matmuls on VMLADAVA.
void s8_lstm__mve(const s8_lstm_params* params, const int8_t* input, const int8_t* w_x,
                  const int8_t* w_h, const int32_t* bias, int8_t* output, void* scratch);
}

#endif  // TINYFORGE_KERNELS_LSTM_LSTM_H_
