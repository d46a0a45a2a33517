// UNIDIRECTIONAL_SEQUENCE_LSTM parameter ranges (kernels/common/limits.h): s8_lstm_check,
// used by the compiler (compiler/quant) and the runtime validator (runtime/ops/lstm.cc).
#ifndef TINYFORGE_KERNELS_LSTM_LSTM_LIMITS_H_
#define TINYFORGE_KERNELS_LSTM_LSTM_LIMITS_H_

#include "kernels/common/limits.h"
#include "kernels/lstm/lstm.h"

// units <= 2^16: 4 * units gate rows and the scratch stay far from int32 limits.
#define TF_LIMIT_LSTM_UNITS 65536

inline const char* s8_lstm_check(const s8_lstm_params& p) {
  TF_CHECK_DIM(p, steps);
  TF_CHECK_DIM(p, in_features);
  TF_CHECK_RANGE(p, units, 1, TF_LIMIT_LSTM_UNITS);
  for (int i = 0; i < 8; ++i) {
    TF_CHECK_RANGE(p, gate_multiplier[i], 0, 2147483647);
    TF_CHECK_SHIFT(p, gate_shift[i]);
  }
  TF_CHECK_RANGE(p, hidden_multiplier, 0, 2147483647);
  TF_CHECK_SHIFT(p, hidden_shift);
  TF_CHECK_INT8(p, hidden_offset);
  TF_CHECK_INT8(p, hidden_init);
  TF_CHECK_RANGE(p, cell_log2, -15, -9);  // tanh of the cell in Q0..Q6 (TFLite's range)
  TF_CHECK_RANGE(p, cell_clip, 0, 32767);
  return nullptr;
}

#endif  // TINYFORGE_KERNELS_LSTM_LSTM_LIMITS_H_
