// LAYER_NORM and RMS_NORM over the innermost dimension, int8 in, int8 out, with the affine
// (gamma, beta) and both quantizations folded into per-channel integers at compile time.
// Integer only at run time (docs/numerics.md "Layer norm"): per row of `depth` int8 values
//   sum = sum q, sumsq = sum q^2                                       (int32)
//   layer_norm: M2 = depth * sumsq - sum^2,  offset = sum * 2^l
//   rms_norm:   M2 = depth * sum (q - zp)^2, offset = zp * depth * 2^l     (int64)
//   V = M2 * 2^16 + eps16 (uint64);  y = 1/sqrt(V) in Q30 (table + 2 Newton steps)
//   t = q * (depth * 2^l) - offset  (= depth * 2^l * (x - mean), exact int32)
//   o = ShiftR(MulHiR(MulHiR(t, y), scale[c]), s)
// where l <= lsh (t's headroom) and s (0 on most rows) split the output shift that follows
// from lsh, V's exponent and scale_exp;
//   out = clamp(RoundShift(SatAdd(o, bias[c]), 16), -128, 127)
// so that out ~ round(gamma[c] * (x - mean) / sqrt(var + eps) / out_scale + beta[c] /
// out_scale) + out_zp. The row arithmetic is kernels/layernorm/layernorm_row.h, shared by
// every variant.
//
// Layout: input and output [rows, depth], dense; scale and bias [depth] (per_channel) or [1].
#ifndef TINYFORGE_KERNELS_LAYERNORM_LAYERNORM_H_
#define TINYFORGE_KERNELS_LAYERNORM_LAYERNORM_H_

#include <cstdint>

struct s8_layernorm_params {
  int32_t rows;              // >= 1, product of all dimensions but the last
  int32_t depth;             // in [1, 32768], the normalized (last) dimension
  int32_t rms;               // 0: layer_norm (subtracts the mean), 1: rms_norm
  int32_t input_zero_point;  // int8; rms_norm centres on it (layer_norm's mean cancels it)
  // eps16 = round(eps / in_scale^2 * depth^2 * 2^16) as two words, < 2^62.
  int32_t eps_lo, eps_hi;
  // scale[c] * 2^(scale_exp - 31) = gamma[c] / out_scale; in [-32, 32].
  int32_t scale_exp;
  int32_t per_channel;       // 1: scale and bias have depth entries, 0: one entry each
  const int32_t* scale;      // operands: int32 constants
  const int32_t* bias;       // round((beta[c] / out_scale + out_zp) * 2^16)
};

extern "C" {
void s8_layernorm__ref(const s8_layernorm_params* params, const int8_t* input, int8_t* output);
void s8_layernorm__scalar(const s8_layernorm_params* params, const int8_t* input,
                          int8_t* output);
// Built for DSP cores only (kernels/common/isa.h TF_HAVE_DSP).
void s8_layernorm__dsp(const s8_layernorm_params* params, const int8_t* input, int8_t* output);
// Built for MVE cores only (TF_HAVE_MVE).
void s8_layernorm__mve(const s8_layernorm_params* params, const int8_t* input, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_LAYERNORM_LAYERNORM_H_
