// The instruction-set guards of the kernel variants, defined once. A variant file
// (kernels/<family>/s8_<op>__dsp*.cc, __mve*.cc) compiles its code only `#if TF_HAVE_DSP` /
// `#if TF_HAVE_MVE`, and the runtime's kernel table, the variant tests and the kernel
// benchmarks test the same macros to know which variants a build links.
#ifndef TINYFORGE_KERNELS_COMMON_ISA_H_
#define TINYFORGE_KERNELS_COMMON_ISA_H_

// Helium integer instructions (MVE-I: bit 0 of __ARM_FEATURE_MVE; Cortex-M55/M85).
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define TF_HAVE_MVE 1
#else
#define TF_HAVE_MVE 0
#endif

// Helium floating point (MVE-F: bit 1; the Cortex-M55's default with -mfloat-abi=hard).
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#define TF_HAVE_MVE_FLOAT 1
#else
#define TF_HAVE_MVE_FLOAT 0
#endif

// A single-precision FPU (bit 2 of __ARM_FP: Cortex-M4F/M7/M33/M55 built hard- or softfp).
#if defined(__ARM_FP) && (__ARM_FP & 4)
#define TF_HAVE_FPU 1
#else
#define TF_HAVE_FPU 0
#endif

// The DSP extension (SIMD32, SMLAD, SSAT16, ...: Cortex-M4/M7/M33/M55).
#if defined(__ARM_FEATURE_DSP)
#define TF_HAVE_DSP 1
#else
#define TF_HAVE_DSP 0
#endif

#endif  // TINYFORGE_KERNELS_COMMON_ISA_H_
