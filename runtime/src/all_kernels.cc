// tf_all_kernels: every kernel variant of the kernels/*/*.inc lists, so that this build runs
// any program. A variant for an instruction set this build lacks (the host has neither DSP
// nor MVE) runs as its operator's portable `__ref`: every variant is bit-identical to
// __ref (tests/kernels/variants), so a program compiled for the M55 gives the same output
// on the host. Firmware lists only its own kernels (the generated model.cc), never this.
#include "kernels/common/isa.h"
#include "tinyforge/kernel_table.h"

// Each operator's portable kernel, by operator name (the `ref` line of its .inc: s8_conv__ref,
// f32_conv__ref, ...).
namespace tf_ref_of {
#define TF_REF_OF_ref(op, symbol) constexpr auto op = &symbol;
#define TF_REF_OF_scalar(op, symbol)
#define TF_REF_OF_dsp(op, symbol)
#define TF_REF_OF_mve(op, symbol)
#define TF_KERNEL_ALL(op, symbol, isa, scratch) TF_REF_OF_##isa(op, symbol)
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_ALL
}  // namespace tf_ref_of

// An entry with `symbol`'s id that runs the portable kernel of the same operator.
#define TF_KERNEL_ENTRY_AS_REF(op, symbol)                                             \
  tf_kernel_entry {                                                                  \
    ::tinyforge::rt::KernelId(#symbol), &::tinyforge::rt::ops::Validate_##op,        \
        &::tinyforge::rt::ops::Run_##op, reinterpret_cast<void (*)()>(tf_ref_of::op), \
        &::tinyforge::rt::kernel_scratch::symbol,                                    \
        static_cast<::tinyforge::rt::OpKind>(::tinyforge::rt::kernel_list_detail::op) \
  }

#define TF_RT_ENTRY_ref(op, symbol) TF_KERNEL_ENTRY(op, symbol),
#define TF_RT_ENTRY_scalar(op, symbol) TF_KERNEL_ENTRY(op, symbol),
#if TF_HAVE_DSP
#define TF_RT_ENTRY_dsp(op, symbol) TF_KERNEL_ENTRY(op, symbol),
#else
#define TF_RT_ENTRY_dsp(op, symbol) TF_KERNEL_ENTRY_AS_REF(op, symbol),
#endif
#if TF_HAVE_MVE
#define TF_RT_ENTRY_mve(op, symbol) TF_KERNEL_ENTRY(op, symbol),
#else
#define TF_RT_ENTRY_mve(op, symbol) TF_KERNEL_ENTRY_AS_REF(op, symbol),
#endif

extern "C" const tf_kernel_entry tf_all_kernels[] = {
#define TF_KERNEL_ALL(op, symbol, isa, scratch) TF_RT_ENTRY_##isa(op, symbol)
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_ALL
};
extern "C" const uint32_t tf_all_kernels_count = sizeof(tf_all_kernels) / sizeof(tf_all_kernels[0]);

// Every path linked on demand (kernels/common/paths.h) of the variants above.
#define TF_KERNEL_ALL(op, symbol, isa, scratch)
#define TF_KERNEL_PATH_ALL(op, kernel, path, isa, pred) TF_KERNEL_PATH_LINK(isa, path)
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_PATH_ALL
#undef TF_KERNEL_ALL
TF_STREAM_LINK()
TF_PIPE_LINK()
