// LUT for Cortex-M0/M3 (plain C++), bit-exact with __ref: eight elements per iteration,
// each a byte load, a table byte load and a byte store (no index arithmetic: the table is
// indexed by the input byte read as unsigned).
#include "kernels/lut/lut.h"

extern "C" void s8_lut__scalar(const s8_lut_params* params, const int8_t* input,
                               const int8_t* table, int8_t* output) {
  const uint8_t* in = reinterpret_cast<const uint8_t*>(input);
  int32_t n = params->size;
  // Read every element of a block before writing any: exact in-place (input == output) is
  // allowed, and the reads of block i never follow the writes of block i.
  for (; n >= 8; n -= 8, in += 8, output += 8) {
    const int8_t y0 = table[in[0]], y1 = table[in[1]], y2 = table[in[2]], y3 = table[in[3]];
    const int8_t y4 = table[in[4]], y5 = table[in[5]], y6 = table[in[6]], y7 = table[in[7]];
    output[0] = y0, output[1] = y1, output[2] = y2, output[3] = y3;
    output[4] = y4, output[5] = y5, output[6] = y6, output[7] = y7;
  }
  for (int32_t i = 0; i < n; ++i) output[i] = table[in[i]];
}
