// Building kernel tables. The generated model.cc lists only the kernels its program uses:
//
//   #include "tinyforge/kernel_table.h"
//   static const tf_kernel_entry kKernels[] = {
//       TF_KERNEL_ENTRY(conv, s8_conv__ref),
//       TF_KERNEL_ENTRY(fc, s8_fc__ref),
//   };
//
// so the linker pulls in those kernels and their op glue (runtime/ops/<op>.cc) and nothing
// else: code size grows with the model, not with the library. `op` is the .inc's op column.
#ifndef TINYFORGE_RUNTIME_KERNEL_TABLE_H_
#define TINYFORGE_RUNTIME_KERNEL_TABLE_H_

#include "kernels/common/paths.h"
#include "kernels/kernels.h"
#include "tinyforge/runtime.h"

namespace tinyforge::rt::ops {

// Per operator kind (kernels/families.def): Validate_<op> checks an op record at init,
// Run_<op> executes it (runtime/ops/<op>.cc).
// Validate_<op> runs once, at init: optimized for size (TF_RT_COLD).
#define TF_OP_KIND(op, Kind, Params)                     \
  TF_RT_COLD Status Validate_##op(const OpContext& ctx); \
  Status Run_##op(const OpContext& ctx);
#include "kernels/families.def"

}  // namespace tinyforge::rt::ops

// Per kernel of every .inc: ScratchBytes (tinyforge/kernel_ids.h) of that kernel's id alone,
// for a parameter struct of operator `op` given by address (-1 when `op` is not the kernel's
// operator). Each entry of a kernel table points to its kernel's, so validation evaluates the
// scratch expressions of the kernels a firmware lists, not those of every variant of their
// families (runtime/src/kernel_scratch.cc; one function per section, unused ones discarded).
namespace tinyforge::rt::kernel_scratch {
#define TF_KERNEL_ALL(op, symbol, isa, scratch) int64_t symbol(const void* params, OpKind kind);
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_ALL
}  // namespace tinyforge::rt::kernel_scratch

#define TF_KERNEL_ENTRY(op, symbol)                                             \
  tf_kernel_entry {                                                             \
    ::tinyforge::rt::KernelId(#symbol), &::tinyforge::rt::ops::Validate_##op,   \
        &::tinyforge::rt::ops::Run_##op, reinterpret_cast<void (*)()>(&symbol), \
        &::tinyforge::rt::kernel_scratch::symbol,                               \
        static_cast<::tinyforge::rt::OpKind>(::tinyforge::rt::kernel_list_detail::op) \
  }

// Every kernel this build can run (the host's `tinyforge run` and the tests use it; it
// links every kernel, so firmware should list its own). Library tinyforge_runtime_all.
extern "C" const tf_kernel_entry tf_all_kernels[];
extern "C" const uint32_t tf_all_kernels_count;

// TF_STREAM_LINK(), at file scope: a strong reference to the streamed-op executor
// (runtime/ops/op_util.h), so that the linker pulls it in; the generated model.cc of a program
// with a streamed op has it, as do tables of every kernel (all_kernels.cc).
#define TF_STREAM_LINK() TF_KERNEL_PATH_LINK_ON(tf_rt_run_streamed_units)
// TF_PIPE_LINK(), the same for the pipe executor (runtime/ops/pipe_run.cc): a program with a
// pipe (tinyforge/pipe.h) has it beside TF_STREAM_LINK.
#define TF_PIPE_LINK() TF_KERNEL_PATH_LINK_ON(tf_rt_check_pipes)

#endif  // TINYFORGE_RUNTIME_KERNEL_TABLE_H_
