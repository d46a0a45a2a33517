// UNIDIRECTIONAL_SEQUENCE_LSTM for Cortex-M55 (Helium/MVE). Bit-identical to s8_lstm__ref:
// the shared sequence loop (lstm_step.h) with the gate matmul on VMLADAVA, four weight rows
// per loaded input vector (16 int8 lanes, the tail predicated with VCTP), exact int32 sums.
#include "kernels/common/isa.h"
#include "kernels/lstm/lstm.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/lstm/lstm_step.h"

namespace {

void GateMatmul(const int8_t* w, const int8_t* x, int32_t n, int32_t rows, const int32_t* b,
                int32_t multiplier, int32_t shift, int16_t* gate) {
  int32_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const int8_t* w0 = w + r * n;
    int32_t a0 = b[r], a1 = b[r + 1], a2 = b[r + 2], a3 = b[r + 3];
    for (int32_t i = 0; i < n; i += 16) {
      const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
      const int8x16_t xv = vldrbq_z_s8(x + i, p);
      a0 = vmladavaq_p_s8(a0, vldrbq_z_s8(w0 + i, p), xv, p);
      a1 = vmladavaq_p_s8(a1, vldrbq_z_s8(w0 + n + i, p), xv, p);
      a2 = vmladavaq_p_s8(a2, vldrbq_z_s8(w0 + 2 * n + i, p), xv, p);
      a3 = vmladavaq_p_s8(a3, vldrbq_z_s8(w0 + 3 * n + i, p), xv, p);
    }
    gate[r] = tinyforge::lstm::AccumulateGate(a0, multiplier, shift, gate[r]);
    gate[r + 1] = tinyforge::lstm::AccumulateGate(a1, multiplier, shift, gate[r + 1]);
    gate[r + 2] = tinyforge::lstm::AccumulateGate(a2, multiplier, shift, gate[r + 2]);
    gate[r + 3] = tinyforge::lstm::AccumulateGate(a3, multiplier, shift, gate[r + 3]);
  }
  for (; r < rows; ++r) {
    const int8_t* w0 = w + r * n;
    int32_t a0 = b[r];
    for (int32_t i = 0; i < n; i += 16) {
      const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
      a0 = vmladavaq_p_s8(a0, vldrbq_z_s8(w0 + i, p), vldrbq_z_s8(x + i, p), p);
    }
    gate[r] = tinyforge::lstm::AccumulateGate(a0, multiplier, shift, gate[r]);
  }
}

}  // namespace

extern "C" void s8_lstm__mve(const s8_lstm_params* params, const int8_t* input, const int8_t* w_x,
                             const int8_t* w_h, const int32_t* bias, int8_t* output,
                             void* scratch) {
  tinyforge::lstm::RunSequence(*params, input, w_x, w_h, bias, output, scratch, GateMatmul);
}

#endif  // TF_HAVE_MVE
