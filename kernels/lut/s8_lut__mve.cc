// LUT for Cortex-M55 (MVE), bit-exact with __ref: 16 elements per step: a contiguous byte
// load, one VLDRB gather with the input bytes as unsigned offsets into the 256-byte table,
// a contiguous byte store; the last 1 .. 15 elements predicated (VCTP).
#include "kernels/lut/lut.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

extern "C" void s8_lut__mve(const s8_lut_params* params, const int8_t* input,
                            const int8_t* table, int8_t* output) {
  const uint8_t* in = reinterpret_cast<const uint8_t*>(input);
  const uint8_t* t = reinterpret_cast<const uint8_t*>(table);
  uint8_t* out = reinterpret_cast<uint8_t*>(output);
  int32_t n = params->size;
  // Whole vectors unpredicated (a load, a gather, a store and the loop branch per 16
  // elements); the tail of 1 .. 15 elements predicated once.
  for (; n >= 16; n -= 16, in += 16, out += 16) {
    vst1q_u8(out, vldrbq_gather_offset_u8(t, vld1q_u8(in)));
  }
  if (n > 0) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n));
    vstrbq_p_u8(out, vldrbq_gather_offset_z_u8(t, vldrbq_z_u8(in, p), p), p);
  }
}

#endif  // TF_HAVE_MVE
