// The fast CONCATENATION variants' walk (internal to kernels/concat), input by input: an
// input that is copied moves as one copy per outer row; one that is requantized goes
// through a 256-entry table, built once per call from the same fx::Requantize that __ref
// applies to each element (so the result is bit-exact), looked up by the variant's class.
// Inputs too small to repay the table are requantized per element.
#ifndef TINYFORGE_KERNELS_CONCAT_CONCAT_ROWS_H_
#define TINYFORGE_KERNELS_CONCAT_CONCAT_ROWS_H_

#include "kernels/common/fixed_point.h"
#include "kernels/concat/concat.h"
#include "kernels/lut/lut.h"

namespace tinyforge::kernels {

// Row length (bytes) up to which an input's rows are copied by a byte loop.
inline constexpr int32_t kConcatByteRow = 4;

// Elements of one input below which a table (256 requantizations) does not pay.
inline constexpr int32_t kConcatTableMinElements = 512;

inline int8_t ConcatRequantize(const s8_concat_params& p, const s8_concat_input& in, int8_t x) {
  const int32_t y = fx::Requantize(x - in.input_zero_point, in.multiplier, in.shift, p.rounding) +
                    p.output_zero_point;
  return static_cast<int8_t>(fx::Clamp(y, -128, 127));
}

// kCopy(src, dst, n): n bytes copied; kLookup(src, table, dst, n): n bytes looked up in the
// 256-byte table. Inputs whose rows are contiguous in the output (one outer row, or the
// only non-empty input) move in one call.
template <void (*kCopy)(const int8_t*, int8_t*, int32_t),
          void (*kLookup)(const int8_t*, const int8_t*, int8_t*, int32_t)>
void ConcatRows(const s8_concat_params& p, const int8_t* const* inputs, int8_t* output) {
  int32_t row = 0;  // output elements per outer row
  for (int32_t k = 0; k < p.num_inputs; ++k) row += p.inputs[k].axis_inner;
  int8_t* dst = output;  // input k's first element in the output
  for (int32_t k = 0; k < p.num_inputs; ++k) {
    const s8_concat_input& in = p.inputs[k];
    const int32_t n = in.axis_inner;
    const int8_t* src = inputs[k];
    const bool whole = p.outer == 1 || n == row;
    if (in.requantize == 0) {
      if (whole) {
        kCopy(src, dst, n * p.outer);
      } else if (n <= kConcatByteRow) {
        // Rows of a few bytes (a channel concat of 1- or 2-channel maps: CBAM's mean and
        // max): a byte loop, not a copy call per row.
        int8_t* d = dst;
        if (n == 1) {
          for (int32_t o = p.outer; o > 0; --o, d += row) *d = *src++;
        } else {
          for (int32_t o = p.outer; o > 0; --o, d += row) {
            for (int32_t i = 0; i < n; ++i) d[i] = *src++;
          }
        }
      } else {
        for (int32_t o = 0; o < p.outer; ++o) kCopy(src + o * n, dst + o * row, n);
      }
    } else if (n * p.outer >= kConcatTableMinElements) {
      alignas(16) int8_t table[TF_LUT_ENTRIES];
      for (int32_t v = 0; v < TF_LUT_ENTRIES; ++v) {
        table[v] = ConcatRequantize(p, in, static_cast<int8_t>(v));
      }
      if (whole) {
        kLookup(src, table, dst, n * p.outer);
      } else {
        for (int32_t o = 0; o < p.outer; ++o) kLookup(src + o * n, table, dst + o * row, n);
      }
    } else {
      for (int32_t o = 0; o < p.outer; ++o) {
        for (int32_t i = 0; i < n; ++i) dst[o * row + i] = ConcatRequantize(p, in, src[o * n + i]);
      }
    }
    dst += n;
  }
}

// The copy and lookup of the dsp / scalar variants: memcpy and the lut family's kernel.
inline void ConcatMemcpy(const int8_t* src, int8_t* dst, int32_t n) {
  __builtin_memcpy(dst, src, static_cast<uint32_t>(n));
}
template <void (*kLut)(const s8_lut_params*, const int8_t*, const int8_t*, int8_t*)>
void ConcatLut(const int8_t* src, const int8_t* table, int8_t* dst, int32_t n) {
  const s8_lut_params lp{n};
  kLut(&lp, src, table, dst);
}

}  // namespace tinyforge::kernels

#endif  // TINYFORGE_KERNELS_CONCAT_CONCAT_ROWS_H_
