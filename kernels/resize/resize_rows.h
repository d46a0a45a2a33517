// The loop structure every fast resize variant shares: output rows whose source rows
// (y0, y1, wy) equal the previous row's are a copy of that output row; other rows are
// built pixel by pixel by the variant's `Row` (nearest: copies of `channels` bytes;
// bilinear: the blend of two input rows). Bit-identical to s8_resize__ref by construction
// as long as Row is.
#ifndef TINYFORGE_KERNELS_RESIZE_RESIZE_ROWS_H_
#define TINYFORGE_KERNELS_RESIZE_RESIZE_ROWS_H_

#include "kernels/resize/resize.h"

namespace tinyforge::resize {

// n bytes from src to dst (not overlapping): 8 per iteration through words, then bytes.
inline void CopyBytes(int8_t* dst, const int8_t* src, int32_t n) {
  int32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint32_t w0, w1;
    __builtin_memcpy(&w0, src + i, 4);
    __builtin_memcpy(&w1, src + i + 4, 4);
    __builtin_memcpy(dst + i, &w0, 4);
    __builtin_memcpy(dst + i + 4, &w1, 4);
  }
  for (; i < n; ++i) dst[i] = src[i];
}

// Row(in_row0, in_row1, wy, cols, out_row) builds one output row of output_w pixels.
template <class Row, class Copy>
inline void ForEachRow(const s8_resize_params& p, const int8_t* input, const int32_t* table,
                       int8_t* output, Row&& row, Copy&& copy) {
  const int32_t in_row = p.input_w * p.channels;
  const int32_t out_row = p.output_w * p.channels;
  const int32_t* cols = table + 3 * p.output_h;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* in = input + b * p.input_h * in_row;
    int8_t* out = output + b * p.output_h * out_row;
    for (int32_t y = 0; y < p.output_h; ++y, out += out_row) {
      const int32_t* t = table + 3 * y;
      if (y > 0 && t[0] == t[-3] && t[1] == t[-2] && t[2] == t[-1]) {
        copy(out, out - out_row, out_row);
        continue;
      }
      row(in + t[0] * in_row, in + t[1] * in_row, t[2], cols, out);
    }
  }
}

// Nearest neighbour with a fixed pixel size: one fixed-size copy per pixel.
template <int32_t kC>
inline void NearestRowFixed(int32_t w, const int8_t* in, const int32_t* cols, int8_t* out) {
  for (int32_t x = 0; x < w; ++x, out += kC, cols += 3) __builtin_memcpy(out, in + cols[0] * kC, kC);
}

// Nearest neighbour: pixel x of the row is input pixel x0, `channels` bytes.
inline void NearestRowScalar(const s8_resize_params& p, const int8_t* in, const int32_t* cols,
                             int8_t* out) {
  const int32_t c = p.channels;
  switch (c) {
    case 1:
      return NearestRowFixed<1>(p.output_w, in, cols, out);
    case 2:
      return NearestRowFixed<2>(p.output_w, in, cols, out);
    case 3:
      return NearestRowFixed<3>(p.output_w, in, cols, out);
    case 4:
      return NearestRowFixed<4>(p.output_w, in, cols, out);
    default:
      break;
  }
  for (int32_t x = 0; x < p.output_w; ++x, out += c) CopyBytes(out, in + cols[3 * x] * c, c);
}

// TFLite's rounding of the 20-bit sum: (s + (s > 0 ? 2^19 : -2^19)) / 2^20, as a shift.
inline int32_t RoundSum(int32_t s) { return (s + (1 << 19) + (s >> 31)) >> 20; }

}  // namespace tinyforge::resize

#endif  // TINYFORGE_KERNELS_RESIZE_RESIZE_ROWS_H_
