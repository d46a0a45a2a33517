// tf_all_kernels: every kernel variant this build can run, from the kernels/*/*.inc lists.
// Variants for an instruction set the compiler is not targeting are left out.
#include "tinyforge/kernel_table.h"

#define TF_RT_ENTRY_ref(op, symbol) TF_KERNEL_ENTRY(op, symbol),
#define TF_RT_ENTRY_scalar(op, symbol) TF_KERNEL_ENTRY(op, symbol),
#if defined(__ARM_FEATURE_DSP)
#define TF_RT_ENTRY_dsp(op, symbol) TF_KERNEL_ENTRY(op, symbol),
#else
#define TF_RT_ENTRY_dsp(op, symbol)
#endif
#if defined(__ARM_FEATURE_MVE)
#define TF_RT_ENTRY_mve(op, symbol) TF_KERNEL_ENTRY(op, symbol),
#else
#define TF_RT_ENTRY_mve(op, symbol)
#endif

extern "C" const tf_kernel_entry tf_all_kernels[] = {
#define TF_KERNEL_ALL(op, symbol, isa, scratch) TF_RT_ENTRY_##isa(op, symbol)
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_ALL
};
extern "C" const uint32_t tf_all_kernels_count = sizeof(tf_all_kernels) / sizeof(tf_all_kernels[0]);
