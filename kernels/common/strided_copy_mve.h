// The vector row of kernels/common/strided_copy.h for Helium (MVE): a gather row
// (contiguous writes) loads 16 bytes per VLDRB gather with 8-bit offsets when
// 15 * stride < 256, else 8 with 16-bit offsets; a scatter row (contiguous reads) stores the
// same way; a contiguous row copies 16 bytes per vector. Tails are predicated. Rows whose
// offsets do not fit 16 bits (stride > 9362) or that are strided on both sides run
// RowScalar. Include only #if TF_HAVE_MVE.
#ifndef TINYFORGE_KERNELS_COMMON_STRIDED_COPY_MVE_H_
#define TINYFORGE_KERNELS_COMMON_STRIDED_COPY_MVE_H_

#include <arm_mve.h>

#include "kernels/common/strided_copy.h"

namespace tinyforge::strided {

[[gnu::noinline]] inline void RowMve(const int8_t* in, int8_t* out, int32_t n, int32_t si, int32_t so) {
  if (si == 1 && so == 1) {
    for (int32_t i = 0; i < n; i += 16) {
      const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
      vstrbq_p_s8(out + i, vldrbq_z_s8(in + i, p), p);
    }
    return;
  }
  const int32_t stride = so == 1 ? si : so;
  if (so != 1 && si != 1) {
    RowScalar(in, out, n, si, so);
    return;
  }
  if (15 * stride < 256) {
    const uint8x16_t off = vmulq_n_u8(vidupq_n_u8(0, 1), static_cast<uint8_t>(stride));
    const int32_t step = 16 * stride;
    const uint8_t* src = reinterpret_cast<const uint8_t*>(in);
    uint8_t* dst = reinterpret_cast<uint8_t*>(out);
    for (int32_t i = 0; i < n; i += 16) {
      const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
      if (so == 1) {
        vstrbq_p_u8(dst, vldrbq_gather_offset_z_u8(src, off, p), p);
        src += step;
        dst += 16;
      } else {
        vstrbq_scatter_offset_p_u8(dst, off, vldrbq_z_u8(src, p), p);
        src += 16;
        dst += step;
      }
    }
    return;
  }
  if (7 * stride <= 65535) {
    const uint16x8_t off = vmulq_n_u16(vidupq_n_u16(0, 1), static_cast<uint16_t>(stride));
    const int32_t step = 8 * stride;
    const uint8_t* src = reinterpret_cast<const uint8_t*>(in);
    uint8_t* dst = reinterpret_cast<uint8_t*>(out);
    for (int32_t i = 0; i < n; i += 8) {
      const mve_pred16_t p = vctp16q(static_cast<uint32_t>(n - i));
      if (so == 1) {
        vstrbq_p_u16(dst, vldrbq_gather_offset_z_u16(src, off, p), p);
        src += step;
        dst += 8;
      } else {
        vstrbq_scatter_offset_p_u16(dst, off, vldrbq_z_u16(src, p), p);
        src += 8;
        dst += step;
      }
    }
    return;
  }
  RowScalar(in, out, n, si, so);
}

// One block: 16 elements per 8-bit-offset gather (max offset < 256), else 8 per 16-bit one;
// whole vectors unpredicated, the tail predicated.
[[gnu::noinline]] inline void BlockMve(const int8_t* in, int8_t* out, const Blocks& b) {
  const uint8_t* src = reinterpret_cast<const uint8_t*>(in);
  uint8_t* dst = reinterpret_cast<uint8_t*>(out);
  const int32_t len = b.len;
  if (b.max_offset < 256) {
    const uint8_t* off = b.off8;
    int32_t j = 0;
    for (; j + 16 <= len; j += 16) {
      vstrbq_u8(dst + j, vldrbq_gather_offset_u8(src, vldrbq_u8(off + j)));
    }
    if (j < len) {
      const mve_pred16_t p = vctp8q(static_cast<uint32_t>(len - j));
      vstrbq_p_u8(dst + j, vldrbq_gather_offset_z_u8(src, vldrbq_z_u8(off + j, p), p), p);
    }
    return;
  }
  const uint16_t* off = b.off;
  int32_t j = 0;
  for (; j + 8 <= len; j += 8) {
    vstrbq_u16(dst + j, vldrbq_gather_offset_u16(src, vldrhq_u16(off + j)));
  }
  if (j < len) {
    const mve_pred16_t p = vctp16q(static_cast<uint32_t>(len - j));
    vstrbq_p_u16(dst + j, vldrbq_gather_offset_z_u16(src, vldrhq_z_u16(off + j, p), p), p);
  }
}

}  // namespace tinyforge::strided

#endif  // TINYFORGE_KERNELS_COMMON_STRIDED_COPY_MVE_H_
