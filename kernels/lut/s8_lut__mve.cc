// LUT for Cortex-M55 (MVE), bit-exact with __ref: 16 elements per step, tail-predicated:
// a contiguous byte load, one VLDRB gather with the input bytes as unsigned offsets into
// the 256-byte table, a contiguous byte store.
#include "kernels/lut/lut.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

extern "C" void s8_lut__mve(const s8_lut_params* params, const int8_t* input,
                            const int8_t* table, int8_t* output) {
  const uint8_t* in = reinterpret_cast<const uint8_t*>(input);
  const uint8_t* t = reinterpret_cast<const uint8_t*>(table);
  uint8_t* out = reinterpret_cast<uint8_t*>(output);
  for (int32_t n = params->size; n > 0; n -= 16, in += 16, out += 16) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n));
    const uint8x16_t x = vldrbq_z_u8(in, p);
    const uint8x16_t y = vldrbq_gather_offset_z_u8(t, x, p);
    vstrbq_p_u8(out, y, p);
  }
}

#endif  // TF_HAVE_MVE
