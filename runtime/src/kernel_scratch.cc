// tinyforge::rt::kernel_scratch (tinyforge/kernel_table.h): one function per kernel of the
// .inc lists, its id's ScratchBytes with the id fixed, so each folds to that kernel's own
// scratch expression. Kernel tables point to them; a firmware keeps those its table names
// (-ffunction-sections, --gc-sections).
#include "tinyforge/kernel_table.h"
#include "tinyforge/op_abi.h"

namespace tinyforge::rt::kernel_scratch {

// `params` is a struct of operator `kind` (the glue passes its own), read as such once the
// kind is the kernel's.
#define TF_KERNEL_ALL(op, symbol, isa, scratch)                                      \
  int64_t symbol(const void* params, OpKind kind) {                                 \
    constexpr OpKind kOp = static_cast<OpKind>(kernel_list_detail::op);             \
    if (kind != kOp) return -1;                                                     \
    return ScratchBytes<kOp>(KernelId(#symbol),                                     \
                             *static_cast<const abi::ParamsOf<kOp>::type*>(params)); \
  }
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_ALL

}  // namespace tinyforge::rt::kernel_scratch
