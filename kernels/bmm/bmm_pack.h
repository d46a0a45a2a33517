// The fast bmm variants' common frame (internal header): per output batch, the lhs as
// [rows, depth] and the rhs as [cols, depth] (every row of both operands contiguous along
// the depth, the form the GEMM cores of kernels/common/gemm/ take: lhs rows are their
// "columns", rhs rows their "weight rows"). An operand stored the other way is transposed
// into scratch once per batch it changes in (a broadcast operand once per call).
//
// Offsets: the cores take int8 weight rows with zero point 0. With an rhs offset o_r the
// missing part of every sum is o_r * sum_k (lhs[i][k] + o_l), one term per lhs row (and,
// where lhs rows stay int8 too, o_l * sum_k rhs[j][k] + depth * o_l * o_r per rhs row);
// RowTerm / ColTerm compute them with wrapping arithmetic, as the reference's sum wraps.
#ifndef TINYFORGE_KERNELS_BMM_BMM_PACK_H_
#define TINYFORGE_KERNELS_BMM_BMM_PACK_H_

#include <cstdint>

#include "kernels/bmm/bmm.h"

namespace tinyforge::bmm {

// dst[c][r] = src[r][c] for an r x c source: 4 x 4 blocks through words (4 word loads, 12
// bit operations, 4 word stores per 16 bytes, against about 5 instructions per byte
// bytewise), the edges bytewise.
[[gnu::noinline]] inline void Transpose(const int8_t* src, int32_t r, int32_t c, int8_t* dst) {
  const int32_t r4 = r & ~3, c4 = c & ~3;
  for (int32_t i = 0; i < r4; i += 4) {
    for (int32_t j = 0; j < c4; j += 4) {
      uint32_t a, b, x, y;  // rows i..i+3, bytes j..j+3 (byte 0 = column j)
      __builtin_memcpy(&a, src + i * c + j, 4);
      __builtin_memcpy(&b, src + (i + 1) * c + j, 4);
      __builtin_memcpy(&x, src + (i + 2) * c + j, 4);
      __builtin_memcpy(&y, src + (i + 3) * c + j, 4);
      // Bytes {a0 b0 a2 b2}, {a1 b1 a3 b3}, and the same of x, y.
      const uint32_t ab02 = (a & 0x00FF00FFu) | ((b & 0x00FF00FFu) << 8);
      const uint32_t ab13 = ((a >> 8) & 0x00FF00FFu) | (b & 0xFF00FF00u);
      const uint32_t xy02 = (x & 0x00FF00FFu) | ((y & 0x00FF00FFu) << 8);
      const uint32_t xy13 = ((x >> 8) & 0x00FF00FFu) | (y & 0xFF00FF00u);
      const uint32_t o0 = (ab02 & 0xFFFFu) | (xy02 << 16);        // a0 b0 x0 y0
      const uint32_t o1 = (ab13 & 0xFFFFu) | (xy13 << 16);        // a1 b1 x1 y1
      const uint32_t o2 = (ab02 >> 16) | (xy02 & 0xFFFF0000u);    // a2 b2 x2 y2
      const uint32_t o3 = (ab13 >> 16) | (xy13 & 0xFFFF0000u);    // a3 b3 x3 y3
      __builtin_memcpy(dst + j * r + i, &o0, 4);
      __builtin_memcpy(dst + (j + 1) * r + i, &o1, 4);
      __builtin_memcpy(dst + (j + 2) * r + i, &o2, 4);
      __builtin_memcpy(dst + (j + 3) * r + i, &o3, 4);
    }
  }
  for (int32_t i = 0; i < r; ++i) {
    const int8_t* s = src + i * c;
    for (int32_t j = i < r4 ? c4 : 0; j < c; ++j) dst[j * r + i] = s[j];
  }
}

inline int32_t SumS8(const int8_t* v, int32_t n) {
  int32_t s = 0;
  for (int32_t i = 0; i < n; ++i) s += v[i];
  return s;
}

// scale * (sum + n * offset), wrapping (sum: of n int8 values).
inline int32_t OffsetTerm(int32_t sum, int32_t n, int32_t offset, int32_t scale) {
  const uint32_t t = static_cast<uint32_t>(sum) + static_cast<uint32_t>(n) * static_cast<uint32_t>(offset);
  return static_cast<int32_t>(t * static_cast<uint32_t>(scale));
}

// Calls f(a, bt, out) per output batch: a = lhs [rows, depth], bt = rhs [cols, depth],
// out = that batch's output. pack: Pack(scratch).
template <class F>
inline void ForEachBatch(const s8_bmm_params& p, const int8_t* lhs, const int8_t* rhs,
                         int8_t* output, int8_t* pack, F&& f) {
  const int32_t m = p.rows, k = p.depth, n = p.cols;
  int8_t* a_buf = pack;
  int8_t* b_buf = pack + (p.lhs_transposed ? (m * k + 3) & ~3 : 0);
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* a = lhs + (b % p.lhs_batches) * m * k;
    const int8_t* bt = rhs + (b % p.rhs_batches) * k * n;
    if (p.lhs_transposed) {
      if (b == 0 || p.lhs_batches != 1) Transpose(a, k, m, a_buf);
      a = a_buf;
    }
    if (!p.rhs_transposed) {
      if (b == 0 || p.rhs_batches != 1) Transpose(bt, k, n, b_buf);
      bt = b_buf;
    }
    f(a, bt, output + b * m * n);
  }
}

// The scratch past the packed operands, aligned to `align` bytes.
inline int8_t* Pack(void* scratch) {
  return reinterpret_cast<int8_t*>((reinterpret_cast<uintptr_t>(scratch) + 3u) & ~uintptr_t{3});
}

// The scratch past the packed operands, aligned to `align` (4 or 8) bytes: the variant's
// .inc line adds align bytes of slack.
inline void* After(void* scratch, const s8_bmm_params& p, uintptr_t align) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(Pack(scratch)) +
                         static_cast<uintptr_t>(s8_bmm_pack_bytes(p) - 4);
  return reinterpret_cast<void*>((base + align - 1) & ~(align - 1));
}

}  // namespace tinyforge::bmm

#endif  // TINYFORGE_KERNELS_BMM_BMM_PACK_H_
