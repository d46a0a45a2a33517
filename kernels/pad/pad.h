// PAD / PADV2 of an int8 tensor of up to 5 dimensions (TFLite Micro pads up to 5-D).
// Output element = input element where the output index minus pad_before lies inside the
// input, else pad_value. PAD pads with the output zero point (TFLite requires input and
// output to share scale and zero point); PADV2 with its quantized constant.
// Numerics: TFLite Micro reference_ops::PadImpl (pure data movement).
//
// Layout: dense C order; dimensions are outermost first, unused leading ones are 1 with
// zero padding. output_dims[i] = input_dims[i] + pad_before[i] + pad_after[i].
#ifndef TINYFORGE_KERNELS_PAD_PAD_H_
#define TINYFORGE_KERNELS_PAD_PAD_H_

#include <cstdint>

constexpr int kS8PadMaxDims = 5;

struct s8_pad_params {
  int32_t input_dims[kS8PadMaxDims];  // each >= 1
  int32_t pad_before[kS8PadMaxDims];  // each >= 0
  int32_t pad_after[kS8PadMaxDims];   // each >= 0
  int32_t pad_value;                  // in [-128, 127]
};

extern "C" {
// Output must not alias the input.
void s8_pad__ref(const s8_pad_params* params, const int8_t* input, int8_t* output);
// Cortex-M0/M3/M4 (word copies; also the host).
void s8_pad__scalar(const s8_pad_params* params, const int8_t* input, int8_t* output);
// Cortex-M55 (Helium).
void s8_pad__mve(const s8_pad_params* params, const int8_t* input, int8_t* output);
}

#endif  // TINYFORGE_KERNELS_PAD_PAD_H_
