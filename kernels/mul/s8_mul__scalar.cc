// MUL for cores without SIMD (Cortex-M0/M3; also the host), bit-identical to s8_mul__ref in
// both rounding modes: kernels/mul/mul_rows.h (one high-word multiply per element, tables
// for long rows with a constant operand).
#include "kernels/mul/mul.h"
#include "kernels/mul/mul_rows.h"

extern "C" void s8_mul__scalar(const s8_mul_params* params, const int8_t* input1,
                               const int8_t* input2, int8_t* output) {
  tinyforge::mul_rows::Run(*params, input1, input2, output);
}
