// Portable reference UNIDIRECTIONAL_SEQUENCE_LSTM (the oracle for every other lstm variant).
#include "kernels/lstm/lstm_step.h"

namespace fx = tinyforge::fx;

extern "C" void s8_lstm__ref(const s8_lstm_params* params, const int8_t* input, const int8_t* w_x,
                             const int8_t* w_h, const int32_t* bias, int8_t* output,
                             void* scratch) {
  tinyforge::lstm::RunSequence(
      *params, input, w_x, w_h, bias, output, scratch,
      [](const int8_t* w, const int8_t* x, int32_t n, int32_t rows, const int32_t* b,
         int32_t multiplier, int32_t shift, int16_t* gate) {
        for (int32_t r = 0; r < rows; ++r) {
          const int8_t* row = w + r * n;
          int32_t acc = b[r];
          for (int32_t i = 0; i < n; ++i) acc = fx::WrapAdd(acc, int32_t{row[i]} * x[i]);
          gate[r] = tinyforge::lstm::AccumulateGate(acc, multiplier, shift, gate[r]);
        }
      });
}
