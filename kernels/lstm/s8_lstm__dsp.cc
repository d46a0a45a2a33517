// UNIDIRECTIONAL_SEQUENCE_LSTM for Armv7E-M / Armv8-M with the DSP extension (Cortex-M4/M7/
// M33). Bit-identical to s8_lstm__ref: the shared sequence loop (lstm_step.h) with the gate
// matmul on SMLAD, two weight rows per pass over the input (its words sign-extended to int16
// pairs once for both rows: SXTB16, SXTB16 ROR 8), exact int32 sums as __ref's.
#include "kernels/common/isa.h"
#include "kernels/lstm/lstm.h"

#if TF_HAVE_DSP

#include <arm_acle.h>

#include "kernels/common/word.h"
#include "kernels/lstm/lstm_step.h"

namespace {

using tinyforge::LoadWord;
using tinyforge::dsp::Sxtb16Ror8;

void GateMatmul(const int8_t* w, const int8_t* x, int32_t n, int32_t rows, const int32_t* b,
                int32_t multiplier, int32_t shift, int16_t* gate) {
  const int32_t n4 = n & ~3;
  int32_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    const int8_t* w0 = w + r * n;
    const int8_t* w1 = w0 + n;
    int32_t a0 = b[r], a1 = b[r + 1];
    for (int32_t i = 0; i < n4; i += 4) {
      const int32_t xv = static_cast<int32_t>(LoadWord(x + i));
      const int32_t xe = __sxtb16(xv), xo = Sxtb16Ror8(xv);
      const int32_t v0 = static_cast<int32_t>(LoadWord(w0 + i));
      const int32_t v1 = static_cast<int32_t>(LoadWord(w1 + i));
      a0 = __smlad(__sxtb16(v0), xe, a0);
      a0 = __smlad(Sxtb16Ror8(v0), xo, a0);
      a1 = __smlad(__sxtb16(v1), xe, a1);
      a1 = __smlad(Sxtb16Ror8(v1), xo, a1);
    }
    for (int32_t i = n4; i < n; ++i) {
      a0 += int32_t{w0[i]} * x[i];
      a1 += int32_t{w1[i]} * x[i];
    }
    gate[r] = tinyforge::lstm::AccumulateGate(a0, multiplier, shift, gate[r]);
    gate[r + 1] = tinyforge::lstm::AccumulateGate(a1, multiplier, shift, gate[r + 1]);
  }
  for (; r < rows; ++r) {
    const int8_t* w0 = w + r * n;
    int32_t a0 = b[r];
    for (int32_t i = 0; i < n4; i += 4) {
      const int32_t xv = static_cast<int32_t>(LoadWord(x + i));
      const int32_t v0 = static_cast<int32_t>(LoadWord(w0 + i));
      a0 = __smlad(__sxtb16(v0), __sxtb16(xv), a0);
      a0 = __smlad(Sxtb16Ror8(v0), Sxtb16Ror8(xv), a0);
    }
    for (int32_t i = n4; i < n; ++i) a0 += int32_t{w0[i]} * x[i];
    gate[r] = tinyforge::lstm::AccumulateGate(a0, multiplier, shift, gate[r]);
  }
}

}  // namespace

extern "C" void s8_lstm__dsp(const s8_lstm_params* params, const int8_t* input, const int8_t* w_x,
                             const int8_t* w_h, const int32_t* bias, int8_t* output,
                             void* scratch) {
  tinyforge::lstm::RunSequence(*params, input, w_x, w_h, bias, output, scratch, GateMatmul);
}

#endif  // TF_HAVE_DSP
