// RESIZE of an int8 NHWC tensor over its height and width: nearest neighbour (TFLite
// RESIZE_NEAREST_NEIGHBOR, torch upsample_nearest2d) or bilinear with TFLite's integer
// algorithm (RESIZE_BILINEAR on int8: weights with 10 fractional bits, one rounding of the
// 20-bit sum, half away from zero).
//
// The source coordinates come from a table the compiler computes (compiler/quant
// MakeResizeTable) by the front end's own rule (align_corners, half_pixel_centers, a
// PyTorch scale factor), so the kernels only gather and blend. For each output row y the
// table holds (y0, y1, wy), then for each output column x (x0, x1, wx):
//   nearest:  output[b, y, x, c] = input[b, y0, x0, c]
//   bilinear: s = in[y0,x0]*(1024-wy)*(1024-wx) + in[y1,x0]*wy*(1024-wx)
//               + in[y0,x1]*(1024-wy)*wx       + in[y1,x1]*wy*wx
//             output = (int8)((s + (s > 0 ? 2^19 : -2^19)) / 2^20)   (C division)
// with 0 <= y0, y1 < input_h, 0 <= x0, x1 < input_w and 0 <= w <= 1024 (resize_limits.h),
// so |s| <= 2^27: int32 arithmetic is exact. Input and output share scale and zero point
// (the op moves or blends values; the compiler adds a requantize when they differ).
#ifndef TINYFORGE_KERNELS_RESIZE_RESIZE_H_
#define TINYFORGE_KERNELS_RESIZE_RESIZE_H_

#include <cstdint>

// The weight of a whole input pixel along one axis (10 fractional bits).
#define TF_RESIZE_ONE 1024

struct s8_resize_params {
  int32_t batches;   // >= 1
  int32_t input_h;   // >= 1
  int32_t input_w;   // >= 1
  int32_t channels;  // >= 1
  int32_t output_h;  // >= 1
  int32_t output_w;  // >= 1
  int32_t bilinear;  // 0: nearest neighbour, 1: bilinear
};

// int32 entries of the table: three per output row and three per output column.
inline constexpr int64_t s8_resize_table_entries(const s8_resize_params& p) {
  return 3 * (static_cast<int64_t>(p.output_h) + p.output_w);
}

extern "C" {
// Output must not alias the input or the table.
void s8_resize__ref(const s8_resize_params* params, const int8_t* input, const int32_t* table,
                    int8_t* output);
void s8_resize__scalar(const s8_resize_params* params, const int8_t* input,
                       const int32_t* table, int8_t* output);
void s8_resize__mve(const s8_resize_params* params, const int8_t* input, const int32_t* table,
                    int8_t* output);
}

#endif  // TINYFORGE_KERNELS_RESIZE_RESIZE_H_
