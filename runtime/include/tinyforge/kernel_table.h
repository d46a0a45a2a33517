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

#define TF_KERNEL_ENTRY(op, symbol)                                            \
  tf_kernel_entry {                                                            \
    ::tinyforge::rt::KernelId(#symbol), &::tinyforge::rt::ops::Validate_##op,  \
        &::tinyforge::rt::ops::Run_##op, reinterpret_cast<void (*)()>(&symbol) \
  }

// Every kernel this build can run (the host's `tinyforge run` and the tests use it; it
// links every kernel, so firmware should list its own). Library tinyforge_runtime_all.
extern "C" const tf_kernel_entry tf_all_kernels[];
extern "C" const uint32_t tf_all_kernels_count;

#endif  // TINYFORGE_RUNTIME_KERNEL_TABLE_H_
