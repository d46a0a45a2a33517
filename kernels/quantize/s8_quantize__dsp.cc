// QUANTIZE float -> int8 for cores with the DSP extension and a single-precision FPU
// (Cortex-M4F, M7, M33), bit-identical to s8_quantize__ref: the quotient from a product and
// two FMAs instead of a VDIV (3 cycles instead of 14; quantize_fast.h), rounded half away
// from zero through one fixed-point conversion and integer steps (no float compares), then
// SSAT. Without an FPU (a soft-float build) it is __ref.
#include "kernels/common/isa.h"
#include "kernels/quantize/quantize.h"

#if TF_HAVE_DSP

#if TF_HAVE_FPU
#include <arm_acle.h>

#include "kernels/quantize/quantize_fast.h"
#endif

extern "C" void s8_quantize__dsp(const s8_quantize_params* params, const float* input,
                                 int8_t* output) {
#if TF_HAVE_FPU
  const s8_quantize_params& p = *params;
  if (!tinyforge::quantize_fast::ScaleInRange(p.scale)) {
    s8_quantize__ref(params, input, output);
    return;
  }
  const float scale = p.scale;
  const float r = 1.0f / scale;
  const int32_t zp = p.zero_point;
  for (int32_t i = 0; i < p.size; ++i) {
    const float x = input[i];
    const float y0 = x * r;
    const float e = __builtin_fmaf(-y0, scale, x);  // exact
    float y = __builtin_fmaf(e, r, y0);
    // y is NaN only where y0 is infinite or x NaN; x is then NaN, infinite or beyond 2^28
    // and converts the same way.
    if (y != y) y = x;
    // Round half away from zero in 16.16 fixed point: VCVT truncates toward zero, turns NaN
    // into 0 and saturates, so |t| = floor(|y| * 2^16) (or 2^31 - 1), and
    // floor(|y| + 1/2) = (|t| + 2^15) >> 16, in uint32 (|INT32_MIN| = 2^31 fits).
    int32_t t;
    __asm__("vcvt.s32.f32 %[v], %[v], #16\n\tvmov %[t], %[v]" : [t] "=r"(t), [v] "+t"(y));
    const int32_t sign = t >> 31;
    const uint32_t abs_t = static_cast<uint32_t>(t ^ sign) - static_cast<uint32_t>(sign);
    const int32_t mag = static_cast<int32_t>((abs_t + 32768u) >> 16);  // <= 2^15
    output[i] = static_cast<int8_t>(__ssat(((mag ^ sign) - sign) + zp, 8));
  }
#else
  s8_quantize__ref(params, input, output);
#endif
}

#endif  // TF_HAVE_DSP
