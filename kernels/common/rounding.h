// Requantization rounding modes, carried by every kernel parameter struct that requantizes
// (field `rounding`). Plain C-compatible constants so the structs stay ISA-neutral.
//
//   TF_ROUNDING_DOUBLE  TensorFlow Lite (Micro)'s default: a rounding doubling high multiply
//                       (VQRDMULH) then a rounding right shift, ties away from zero at both
//                       steps. Used for .tflite models, to be bit-exact with TFLM.
//   TF_ROUNDING_SINGLE  one rounding of the exact 64-bit product, ties towards +inf
//                       (TFLite's TFLITE_SINGLE_ROUNDING). Used for PyTorch models: PyTorch
//                       requantizes in float with a single rounding, and double rounding
//                       differs from it on about 1 % of elements per op (docs/numerics.md).
#ifndef TINYFORGE_KERNELS_COMMON_ROUNDING_H_
#define TINYFORGE_KERNELS_COMMON_ROUNDING_H_

#define TF_ROUNDING_DOUBLE 0
#define TF_ROUNDING_SINGLE 1

#endif  // TINYFORGE_KERNELS_COMMON_ROUNDING_H_
