// TF_F32_NO_VECTORIZE: on the portable float layer kernels (__ref, __scalar). They spell out
// scalar operations one at a time; GCC -O3 on the M55 would otherwise vectorize some loops
// with MVE (e.g. the products of a dot product, summed in order afterwards). Since the layers
// compute in the standard mode MVE uses (f32_arith.h) that gives the same bits, but the
// hand-written __mve variants are the vector code; keeping the portable ones scalar keeps
// them the plain reference they are meant to be (GCC; clang builds only the host and fuzz
// targets).
#ifndef TINYFORGE_KERNELS_F32_F32_SCALAR_H_
#define TINYFORGE_KERNELS_F32_F32_SCALAR_H_

#if defined(__GNUC__) && !defined(__clang__)
#define TF_F32_NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#else
#define TF_F32_NO_VECTORIZE
#endif

#endif  // TINYFORGE_KERNELS_F32_F32_SCALAR_H_
