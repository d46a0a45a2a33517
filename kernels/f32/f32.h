// Float32 fallback kernels: what has no int8 lowering runs in float32 between a DEQUANTIZE
// and a QUANTIZE (docs/numerics.md "Float ops", docs/decisions.md 47).
//   f32_unary:  y[i] = fn(x[i]) for a function of one input (kernels/f32/f32_fns.def)
//   f32_binary: y = fn(a, b), NumPy broadcasting (kernels/common/broadcast.h, strides in
//               elements)
//   f32_cumsum: y = cumulative sum of x along one axis: x viewed as [outer, length, inner],
//               accumulated in double and stored as float32 after each step (PyTorch's CPU
//               cumsum does the same)
// Numerics: + - * / are IEEE float32; the other functions are computed in double with the
// kernels' own series (kernels/f32/f32_math.h: no libm, whose results differ between the
// host's glibc and the device's newlib) and rounded to float32 once. The host executor
// runs these very kernels and they are compiled with -ffp-contract=off, so host and board
// results are bit-identical.
#ifndef TINYFORGE_KERNELS_F32_F32_H_
#define TINYFORGE_KERNELS_F32_F32_H_

#include <cstdint>

#include "kernels/common/broadcast.h"

// The function codes: position in f32_fns.def.
enum f32_fn : int32_t {
#define TF_F32_FN(Enum, name, arity) kF32##Enum,
#include "kernels/f32/f32_fns.def"
  kF32NumFns
};

struct f32_unary_params {
  int32_t size;  // elements, >= 1
  int32_t fn;    // an f32_fn of arity 1
};

struct f32_binary_params {
  s8_broadcast_shape shape;  // strides in elements
  int32_t fn;                // an f32_fn of arity 2
};

struct f32_cumsum_params {
  int32_t outer;   // product of the dims before the axis, >= 1
  int32_t length;  // the axis' extent, >= 1
  int32_t inner;   // product of the dims after the axis, >= 1
};

extern "C" {
// x and y may be the same bytes (element i is read before it is written).
void f32_unary__ref(const f32_unary_params* params, const float* x, float* y);
// y may be an input's bytes when that input is not broadcast.
void f32_binary__ref(const f32_binary_params* params, const float* a, const float* b, float* y);
// y may be x's bytes.
void f32_cumsum__ref(const f32_cumsum_params* params, const float* x, float* y);
}

#endif  // TINYFORGE_KERNELS_F32_F32_H_
