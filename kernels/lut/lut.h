// LUT: any int8 -> int8 elementwise function of one input, as a 256-entry table.
//   output[i] = table[(uint8_t)input[i]]
// The table is indexed by the input's byte read as unsigned: entries 0..127 hold the outputs
// for inputs 0..127, entries 128..255 those for inputs -128..-1. The compiler computes it
// (LOGISTIC / TANH by running their exact integer algorithm on all 256 inputs, PyTorch's
// float activations as quantize(f(dequantize(q))); docs/numerics.md "Table lookups"), so
// every variant is a pure gather and bit-exact with __ref by construction.
#ifndef TINYFORGE_KERNELS_LUT_LUT_H_
#define TINYFORGE_KERNELS_LUT_LUT_H_

#include <cstdint>

// Entries in a table: one per int8 input value.
#define TF_LUT_ENTRIES 256

struct s8_lut_params {
  int32_t size;  // number of elements, >= 1
};

extern "C" {
// table: TF_LUT_ENTRIES bytes. input and output may alias exactly (in-place).
void s8_lut__ref(const s8_lut_params* params, const int8_t* input, const int8_t* table,
                 int8_t* output);
void s8_lut__scalar(const s8_lut_params* params, const int8_t* input, const int8_t* table,
                    int8_t* output);
void s8_lut__dsp(const s8_lut_params* params, const int8_t* input, const int8_t* table,
                 int8_t* output);
void s8_lut__mve(const s8_lut_params* params, const int8_t* input, const int8_t* table,
                 int8_t* output);
}

#endif  // TINYFORGE_KERNELS_LUT_LUT_H_
