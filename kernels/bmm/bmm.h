// BATCH_MATMUL of two int8 activations, per-tensor quantized: for every batch b,
//   out[b] = requant(sum_k (lhs[b][i][k] + lhs_offset) * (rhs[b][k][j] + rhs_offset)).
// Numerics: TFLite's reference_ops::BatchMatMul (int8; int32 accumulator, wrapping) with
// one multiplier/shift (double or single rounding, kernels/common/rounding.h).
//
// Layouts (dense, C order), per batch:
//   lhs    [rows, depth], or [depth, rows] with lhs_transposed (TFLite adj_x)
//   rhs    [depth, cols], or [cols, depth] with rhs_transposed (adj_y; q @ k^T)
//   output [rows, cols]
// Batches: output batch b reads lhs batch b % lhs_batches and rhs batch b % rhs_batches (a
// broadcast operand: one batch, or batch dims that are the output's trailing ones).
#ifndef TINYFORGE_KERNELS_BMM_BMM_H_
#define TINYFORGE_KERNELS_BMM_BMM_H_

#include <cstdint>

#include "kernels/common/rounding.h"

struct s8_bmm_params {
  int32_t batches;         // output batches, > 0
  int32_t lhs_batches;     // > 0, divides batches
  int32_t rhs_batches;     // > 0, divides batches
  int32_t rows;            // M, > 0
  int32_t depth;           // K, > 0
  int32_t cols;            // N, > 0
  int32_t lhs_transposed;  // 0 or 1
  int32_t rhs_transposed;  // 0 or 1
  int32_t lhs_offset;      // -lhs zero point, in [-127, 128]
  int32_t rhs_offset;      // -rhs zero point, in [-127, 128]
  int32_t output_offset;   // output zero point, in [-128, 127]
  // lhs_scale * rhs_scale / out_scale = multiplier * 2^(shift - 31).
  int32_t multiplier;      // in [0, 2^31 - 1]
  int32_t shift;           // in [-31, 30]
  int32_t act_min, act_max;  // output clamp, -128 <= act_min <= act_max <= 127
  int32_t rounding;          // TF_ROUNDING_DOUBLE (TFLite) or TF_ROUNDING_SINGLE
};

// Scratch bytes the fast variants use to hold a batch's operands in their canonical
// layouts (lhs as [rows, depth], rhs as [cols, depth]) when stored the other way
// (kernels/bmm/bmm_pack.h); 4-byte aligned.
constexpr int64_t s8_bmm_pack_bytes(const s8_bmm_params& p) {
  const int64_t a = p.lhs_transposed ? int64_t{p.rows} * p.depth : 0;
  const int64_t b = p.rhs_transposed ? 0 : int64_t{p.cols} * p.depth;
  return ((a + 3) & ~int64_t{3}) + ((b + 3) & ~int64_t{3}) + 4;
}

// s8_bmm__mve's small-depth path (kernels/bmm/mve_bmm_small.h): depth <= 32, single
// rounding, shift in [-24, -1], the int8 range as the clamp.
constexpr bool s8_bmm_mve_small(const s8_bmm_params& p) {
  return p.depth <= 32 && p.rounding == TF_ROUNDING_SINGLE && p.shift <= -1 && p.shift >= -24 &&
         p.act_min == -128 && p.act_max == 127;
}

// s8_bmm__mve's scratch: the small-depth path's row copies (rhs [cols, 16 or 32] unless read
// in place, column terms, lhs chunks of <= 64 rows of 16 or 32 bytes + a term), else the
// canonical operand copies and the row and column terms (int32).
constexpr int64_t s8_bmm_mve_scratch(const s8_bmm_params& p) {
  if (s8_bmm_mve_small(p)) {
    const int64_t kp = p.depth <= 16 ? 16 : 32;
    const int64_t rhs = p.rhs_transposed && p.depth == kp ? 0 : int64_t{p.cols} * kp;
    const int64_t chunk = p.rows < 64 ? p.rows : 64;
    return rhs + 4 * int64_t{p.cols} + chunk * (kp + 4) + 4;
  }
  return s8_bmm_pack_bytes(p) + 4 * (int64_t{p.rows} + p.cols) + 4;
}

extern "C" {
// scratch: unused by __ref (may be null).
void s8_bmm__ref(const s8_bmm_params* params, const int8_t* lhs, const int8_t* rhs,
                 int8_t* output, void* scratch);
// Cortex-M0/M3 and any core (plain C++); scratch: see bmm.inc.
void s8_bmm__scalar(const s8_bmm_params* params, const int8_t* lhs, const int8_t* rhs,
                    int8_t* output, void* scratch);
// Cortex-M4/M7/M33 (DSP); scratch: see bmm.inc.
void s8_bmm__dsp(const s8_bmm_params* params, const int8_t* lhs, const int8_t* rhs,
                 int8_t* output, void* scratch);
// Cortex-M55 (MVE); scratch: see bmm.inc.
void s8_bmm__mve(const s8_bmm_params* params, const int8_t* lhs, const int8_t* rhs,
                 int8_t* output, void* scratch);
}

#endif  // TINYFORGE_KERNELS_BMM_BMM_H_
