// CONCATENATION of int8 tensors along one axis, with optional per-input requantization.
//
// TFLite Micro's int8 CONCATENATION copies bytes and requires every input to share the
// output's scale and zero point; the converter inserts an int8->int8 QUANTIZE
// (requantize) before inputs whose parameters differ. This kernel does both in one pass:
// an input with requantize == 0 is copied, one with requantize == 1 is rescaled exactly
// as TFLite Micro's QUANTIZE int8->int8 (reference_ops::Requantize) does:
//   y = clamp(MBQM(x - input_zero_point, multiplier, shift) + output_zero_point, -128, 127)
// so QUANTIZE+CONCATENATION fused is bit-exact with the two TFLite ops. A plain TFLite
// CONCATENATION is all copies (compiler/quant ConcatMode::kCopyLikeTflm).
//
// Layout: the output is viewed as [outer, sum_i axis_inner_i]; input i as
// [outer, axis_inner_i] where axis_inner_i = (its extent along the axis) * (product of
// the dimensions after the axis). outer = product of the dimensions before the axis.
#ifndef TINYFORGE_KERNELS_CONCAT_CONCAT_H_
#define TINYFORGE_KERNELS_CONCAT_CONCAT_H_

#include <cstdint>

#include "kernels/common/rounding.h"

struct s8_concat_input {
  int32_t axis_inner;         // >= 1, elements contributed per outer row
  int32_t requantize;         // 0: copy; 1: rescale with the fields below
  int32_t input_zero_point;   // in [-128, 127]
  int32_t multiplier, shift;  // in_scale / out_scale, Q31, shift in [-31, 30]
};

struct s8_concat_params {
  int32_t outer;                  // >= 1
  int32_t num_inputs;             // >= 1
  const s8_concat_input* inputs;  // num_inputs entries, owned by the caller
  int32_t output_zero_point;      // in [-128, 127]
  // Requantization rounding: TF_ROUNDING_DOUBLE (0, TFLite Micro) or TF_ROUNDING_SINGLE (1),
  // kernels/common/rounding.h. Zero-initialized structs get TFLM's double rounding.
  int32_t rounding;
};

extern "C" {
// inputs: num_inputs pointers. Output must not alias any input.
void s8_concat__ref(const s8_concat_params* params, const int8_t* const* inputs, int8_t* output);
// Cortex-M0/M3 (also the host), M4/M7/M33 (DSP), M55 (Helium): concat_rows.h.
void s8_concat__scalar(const s8_concat_params* params, const int8_t* const* inputs,
                       int8_t* output);
void s8_concat__dsp(const s8_concat_params* params, const int8_t* const* inputs, int8_t* output);
void s8_concat__mve(const s8_concat_params* params, const int8_t* const* inputs, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_CONCAT_CONCAT_H_
