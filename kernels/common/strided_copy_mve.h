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

// n contiguous bytes: 16 per step, tail predicated (DLSTP / LETP: 3 instructions per 16).
inline void CopyMve(const int8_t* in, int8_t* out, int32_t n) {
  __asm__ volatile(
      "dlstp.8 lr, %[n]\n"
      "1:\n\t"
      "vldrb.8 q0, [%[s]], #16\n\t"
      "vstrb.8 q0, [%[d]], #16\n\t"
      "letp lr, 1b\n"
      : [s] "+r"(in), [d] "+r"(out)
      : [n] "r"(n)
      : "q0", "lr", "memory");
}

[[gnu::noinline]] inline void RowMve(const int8_t* in, int8_t* out, int32_t n, int32_t si, int32_t so) {
  if (si == 1 && so == 1) {
    CopyMve(in, out, n);
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

// Every row of the plan when its innermost loop is contiguous on both sides (a slice of
// whole rows, a concat-like transpose): the copy inline in the loop nest, no call per row.
// False (nothing done) otherwise.
inline bool ContiguousRowsMve(const Plan& t, const int8_t* input, int8_t* output) {
  if (t.si[5] != 1 || t.so[5] != 1) return false;
  const int32_t n = t.n[5];
  for (int32_t i0 = 0; i0 < t.n[0]; ++i0) {
    for (int32_t i1 = 0; i1 < t.n[1]; ++i1) {
      for (int32_t i2 = 0; i2 < t.n[2]; ++i2) {
        const int8_t* in = input + i0 * t.si[0] + i1 * t.si[1] + i2 * t.si[2];
        int8_t* out = output + i0 * t.so[0] + i1 * t.so[1] + i2 * t.so[2];
        for (int32_t i3 = 0; i3 < t.n[3]; ++i3, in += t.si[3], out += t.so[3]) {
          const int8_t* r_in = in;
          int8_t* r_out = out;
          for (int32_t i4 = 0; i4 < t.n[4]; ++i4, r_in += t.si[4], r_out += t.so[4]) {
            CopyMve(r_in, r_out, n);
          }
        }
      }
    }
  }
  return true;
}

// The Helium SLICE: one run by one copy; rows contiguous on both sides (8 bytes or more)
// copied in the loop nest; else strided_copy.h's short-row blocks or rows (Slice).
inline void SliceMve(const s8_slice_params& p, const int8_t* input, int8_t* output) {
  const int32_t run = SliceRun(p);
  if (run > 0) {
    CopyMve(input + SliceOffset(p), output, run);
    return;
  }
  const Plan plan = Merged(MakeSlicePlan(p));
  if (plan.n[5] >= 8 && ContiguousRowsMve(plan, input + SliceOffset(p), output)) return;
  Slice(p, input, output, BlockMve, RowMve);
}

// A transpose of the last two dims, [R, G, K] -> [R, K, G]: out[r][k][g] = in[r][g][k]
// (a channel shuffle's [HW, 2, C/2] -> [HW, C/2, 2]; NCW -> NWC of a 1-D conv input).
// G <= 16: per 16 values of k, G contiguous loads, each scattered to out + 16 G j + g by
// the byte offsets {0, G, ..., 15 G} (< 256), tail predicated.
[[gnu::noinline]] inline void InterleaveMve(const int8_t* in, int8_t* out, int32_t rows,
                                            int32_t g_n, int32_t k_n) {
  const uint8x16_t off = vmulq_n_u8(vidupq_n_u8(0, 1), static_cast<uint8_t>(g_n));
  const int32_t plane = g_n * k_n;
  const uint8_t* src = reinterpret_cast<const uint8_t*>(in);
  uint8_t* dst = reinterpret_cast<uint8_t*>(out);
  for (int32_t r = 0; r < rows; ++r, src += plane, dst += plane) {
    for (int32_t k = 0; k < k_n; k += 16) {
      const mve_pred16_t p = vctp8q(static_cast<uint32_t>(k_n - k));
      const uint8_t* s = src + k;
      uint8_t* d = dst + k * g_n;
      for (int32_t g = 0; g < g_n; ++g, s += k_n, ++d) {
        vstrbq_scatter_offset_p_u8(d, off, vldrbq_z_u8(s, p), p);
      }
    }
  }
}

// The same with K <= 16 (and G > 16): each output row k gathers its G values 16 at a time
// from in + k by the byte offsets {0, K, ..., 15 K}, tail predicated.
[[gnu::noinline]] inline void DeinterleaveMve(const int8_t* in, int8_t* out, int32_t rows,
                                              int32_t g_n, int32_t k_n) {
  const uint8x16_t off = vmulq_n_u8(vidupq_n_u8(0, 1), static_cast<uint8_t>(k_n));
  const int32_t plane = g_n * k_n;
  const uint8_t* src = reinterpret_cast<const uint8_t*>(in);
  uint8_t* dst = reinterpret_cast<uint8_t*>(out);
  for (int32_t r = 0; r < rows; ++r, src += plane) {
    for (int32_t k = 0; k < k_n; ++k) {
      const uint8_t* s = src + k;
      for (int32_t g = 0; g < g_n; g += 16, s += 16 * k_n, dst += 16) {
        const mve_pred16_t p = vctp8q(static_cast<uint32_t>(g_n - g));
        vstrbq_p_u8(dst, vldrbq_gather_offset_z_u8(s, off, p), p);
      }
      dst -= ((g_n + 15) & ~15) - g_n;  // the last step advanced past the row's end
    }
  }
}

// The Helium TRANSPOSE: the last two dims swapped with one of them <= 16 by the loops
// above (no loop plan); else strided_copy.h's Transpose with the blocks and rows above.
inline void TransposeMve(const s8_transpose_params& p, const int8_t* input, int8_t* output) {
  bool swap = p.perm[4] == 5 && p.perm[5] == 4;
  int32_t rows = 1;
  for (int d = 0; d < 4; ++d) {
    swap = swap && p.perm[d] == d;
    rows *= p.input_dims[d];
  }
  const int32_t g_n = p.input_dims[4], k_n = p.input_dims[5];
  if (swap && g_n <= 16) {
    InterleaveMve(input, output, rows, g_n, k_n);
  } else if (swap && k_n <= 16) {
    DeinterleaveMve(input, output, rows, g_n, k_n);
  } else {
    Transpose(p, input, output, BlockMve, RowMve);
  }
}

}  // namespace tinyforge::strided

#endif  // TINYFORGE_KERNELS_COMMON_STRIDED_COPY_MVE_H_
