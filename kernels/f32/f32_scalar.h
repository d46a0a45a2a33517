// TF_F32_NO_VECTORIZE: on every float layer kernel. A loop GCC vectorizes with MVE on the
// M55 (-O3; e.g. the products of a dot product, summed in order afterwards) gave other bits
// than the scalar FPU, soft-float and the host on subnormal values (likely MVE's flush to
// zero; tests/kernels/variants/f32_variants.cc's subnormal cases on the an547). The kernels run scalar float code only (GCC;
// clang builds only the host and fuzz targets, where this does not arise).
#ifndef TINYFORGE_KERNELS_F32_F32_SCALAR_H_
#define TINYFORGE_KERNELS_F32_F32_SCALAR_H_

#if defined(__GNUC__) && !defined(__clang__)
#define TF_F32_NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#else
#define TF_F32_NO_VECTORIZE
#endif

#endif  // TINYFORGE_KERNELS_F32_F32_SCALAR_H_
