// MUL for Cortex-M4/M7/M33 (DSP extension), bit-identical to s8_mul__ref: the arithmetic of
// kernels/mul/mul_rows.h, whose high-word multiply compiles to SMULL / SMMUL here. Built for
// the DSP cores so the board picks it over __scalar; the same source as __scalar today.
#include "kernels/common/isa.h"
#include "kernels/mul/mul.h"

#if TF_HAVE_DSP

#include "kernels/mul/mul_rows.h"

extern "C" void s8_mul__dsp(const s8_mul_params* params, const int8_t* input1,
                            const int8_t* input2, int8_t* output) {
  tinyforge::mul_rows::Run(*params, input1, input2, output);
}

#endif  // TF_HAVE_DSP
