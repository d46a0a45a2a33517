// RESIZE for Cortex-M55 (Helium / MVE), bit-identical to s8_resize__ref: repeated output
// rows copied whole 16 bytes per vector (resize_rows.h); nearest pixels copied 16 bytes per
// vector (scalar rows when channels < 8); bilinear four channels per vector in int32 lanes
// (exact: |sum| <= 2^27), one multiply and three multiply-adds by the pixel's weights, the
// rounding as a sign add and a rounding shift; whole vectors unpredicated, the tail predicated.
#include "kernels/common/isa.h"
#include "kernels/resize/resize_rows.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

namespace {
namespace rs = tinyforge::resize;

void CopyMve(int8_t* dst, const int8_t* src, int32_t n) {
  int32_t i = 0;
  for (; i + 16 <= n; i += 16) vstrbq_s8(dst + i, vldrbq_s8(src + i));
  if (i < n) {
    const mve_pred16_t pr = vctp8q(static_cast<uint32_t>(n - i));
    vstrbq_p_s8(dst + i, vldrbq_z_s8(src + i, pr), pr);
  }
}

[[gnu::noinline]] void NearestRow(const s8_resize_params& p, const int8_t* in,
                                  const int32_t* cols, int8_t* out) {
  const int32_t c = p.channels;
  if (c < 8) {
    rs::NearestRowScalar(p, in, cols, out);
    return;
  }
  for (int32_t x = 0; x < p.output_w; ++x, out += c) CopyMve(out, in + cols[3 * x] * c, c);
}

[[gnu::noinline]] void BilinearRow(const s8_resize_params& p, const int8_t* r0, const int8_t* r1,
                                   int32_t wy, const int32_t* cols, int8_t* out) {
  const int32_t c = p.channels;
  const int32_t one = TF_RESIZE_ONE;
  for (int32_t x = 0; x < p.output_w; ++x, cols += 3, out += c) {
    const int32_t wx = cols[2];
    const int32_t w00 = (one - wy) * (one - wx), w10 = wy * (one - wx);
    const int32_t w01 = (one - wy) * wx, w11 = wy * wx;
    const int8_t* a = r0 + cols[0] * c;
    const int8_t* b = r1 + cols[0] * c;
    const int8_t* d = r0 + cols[1] * c;
    const int8_t* e = r1 + cols[1] * c;
    int32_t k = 0;
    for (; k + 4 <= c; k += 4) {  // whole vectors unpredicated
      int32x4_t s = vmulq_n_s32(vldrbq_s32(a + k), w00);
      s = vmlaq_n_s32(s, vldrbq_s32(b + k), w10);
      s = vmlaq_n_s32(s, vldrbq_s32(d + k), w01);
      s = vmlaq_n_s32(s, vldrbq_s32(e + k), w11);
      s = vaddq_s32(s, vshrq_n_s32(s, 31));
      vstrbq_s32(out + k, vrshrq_n_s32(s, 20));
    }
    if (k < c) {
      const mve_pred16_t pr = vctp32q(static_cast<uint32_t>(c - k));
      int32x4_t s = vmulq_n_s32(vldrbq_z_s32(a + k, pr), w00);
      s = vmlaq_n_s32(s, vldrbq_z_s32(b + k, pr), w10);
      s = vmlaq_n_s32(s, vldrbq_z_s32(d + k, pr), w01);
      s = vmlaq_n_s32(s, vldrbq_z_s32(e + k, pr), w11);
      s = vaddq_s32(s, vshrq_n_s32(s, 31));
      vstrbq_p_s32(out + k, vrshrq_n_s32(s, 20), pr);
    }
  }
}

}  // namespace

extern "C" void s8_resize__mve(const s8_resize_params* params, const int8_t* input,
                               const int32_t* table, int8_t* output) {
  const s8_resize_params& p = *params;
  if (p.bilinear) {
    rs::ForEachRow(
        p, input, table, output,
        [&](const int8_t* r0, const int8_t* r1, int32_t wy, const int32_t* cols, int8_t* out) {
          BilinearRow(p, r0, r1, wy, cols, out);
        },
        CopyMve);
  } else {
    rs::ForEachRow(
        p, input, table, output,
        [&](const int8_t* r0, const int8_t*, int32_t, const int32_t* cols, int8_t* out) {
          NearestRow(p, r0, cols, out);
        },
        CopyMve);
  }
}

#endif  // TF_HAVE_MVE
