// Kernel ids and the kernel list, derived from kernels/<family>/<family>.inc so that the
// compiler (which writes ids into programs), the runtime (whose kernel table maps ids to
// functions) and the tests agree by construction.
//
// A kernel id is the FNV-1a 32-bit hash of the kernel's symbol, e.g. KernelId("s8_conv__ref"):
// stable when variants are added, removed or reordered in any .inc file. A static_assert
// below rejects a collision the day one appears.
//
// Freestanding C++17 (the runtime includes it); the compiler includes it too.
#ifndef TINYFORGE_RUNTIME_KERNEL_IDS_H_
#define TINYFORGE_RUNTIME_KERNEL_IDS_H_

#include <cstdint>

#include "kernels/kernels.h"

namespace tinyforge::rt {

constexpr uint32_t KernelId(const char* symbol) {
  uint32_t h = 2166136261u;
  for (const char* c = symbol; *c != '\0'; ++c) {
    h ^= static_cast<uint8_t>(*c);
    h *= 16777619u;
  }
  return h;
}

// The operator a kernel implements: the `op` column of the .inc files, one per TF_OP_KIND line
// of kernels/families.def (in its order). Every kernel of one OpKind takes the same
// parameters and the same op-record layout (tinyforge/op_abi.h).
enum class OpKind : uint8_t {
#define TF_OP_KIND(op, Kind, Params) k##Kind,
#include "kernels/families.def"
};
inline constexpr const char* kOpKindNames[] = {
#define TF_OP_KIND(op, Kind, Params) #op,
#include "kernels/families.def"
};
inline constexpr int kNumOpKinds = static_cast<int>(sizeof(kOpKindNames) / sizeof(kOpKindNames[0]));

// "conv", "avgpool", ...: the op column's spelling (TF_KERNEL_ENTRY's first argument).
constexpr const char* OpKindName(OpKind k) { return kOpKindNames[static_cast<int>(k)]; }

// Instruction-set class of a variant: the `isa` column.
enum class Isa : uint8_t { kRef, kScalar, kDsp, kMve };

struct KernelInfo {
  uint32_t id;
  const char* symbol;  // "s8_conv__ref"
  OpKind op;
  Isa isa;
};

namespace kernel_list_detail {
// Maps the .inc's bare `op` / `isa` tokens to the enums.
enum OpToken : uint8_t {
#define TF_OP_KIND(op, Kind, Params) op = static_cast<uint8_t>(OpKind::k##Kind),
#include "kernels/families.def"
};
enum IsaToken : uint8_t { ref, scalar, dsp, mve };
}  // namespace kernel_list_detail

// Every variant of every family, in family order then .inc order.
inline constexpr KernelInfo kKernels[] = {
#define TF_KERNEL_ALL(op, symbol, isa, scratch)                                       \
  KernelInfo{KernelId(#symbol), #symbol, static_cast<OpKind>(kernel_list_detail::op), \
             static_cast<Isa>(kernel_list_detail::isa)},
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_ALL
};
inline constexpr int kNumKernels = static_cast<int>(sizeof(kKernels) / sizeof(kKernels[0]));

// The kernel with this id, or null.
constexpr const KernelInfo* FindKernel(uint32_t id) {
  for (const KernelInfo& k : kKernels) {
    if (k.id == id) return &k;
  }
  return nullptr;
}

constexpr bool KernelIdsUnique() {
  for (int i = 0; i < kNumKernels; ++i) {
    for (int j = i + 1; j < kNumKernels; ++j) {
      if (kKernels[i].id == kKernels[j].id) return false;
    }
  }
  return true;
}
static_assert(KernelIdsUnique(), "two kernel symbols hash to the same id: rename one");

// Scratch bytes kernel `id` needs for parameters `p` (the .inc's scratch expression), or
// -1 if `id` is not a kernel of operator kOp. The compiler sizes scratch buffers with it and
// the runtime checks the program's scratch tensors against it: one function for both.
template <OpKind kOp, class P>
constexpr int64_t ScratchBytes(uint32_t id, [[maybe_unused]] const P& p) {
#define TF_KERNEL_ALL(op, symbol, isa, scratch)                        \
  if constexpr (static_cast<OpKind>(kernel_list_detail::op) == kOp) {  \
    if (id == KernelId(#symbol)) return static_cast<int64_t>(scratch); \
  }
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_ALL
  return -1;
}

// The paths linked on demand (kernels/common/paths.h) that kernel `id` takes for
// parameters `p` (the .inc's TF_KERNEL_PATH predicates): calls f(path symbol) for each. The
// compiler lists them in the generated model.cc, so the firmware links those and no other.
// `optimize_size` (the predicates read it): `--optimize size`, the smallest paths that run
// the call rather than the fastest.
template <OpKind kOp, class P, class F>
void ForEachPath(uint32_t id, [[maybe_unused]] const P& p, [[maybe_unused]] F&& f,
                 [[maybe_unused]] bool optimize_size = false) {
#define TF_KERNEL_ALL(op, symbol, isa, scratch)
#define TF_KERNEL_PATH_ALL(op, kernel, path, isa, pred)               \
  if constexpr (static_cast<OpKind>(kernel_list_detail::op) == kOp) { \
    if (id == KernelId(#kernel) && (pred)) f(#path);                  \
  }
#include "tinyforge/all_kernels.inc"
#undef TF_KERNEL_PATH_ALL
#undef TF_KERNEL_ALL
}

}  // namespace tinyforge::rt

#endif  // TINYFORGE_RUNTIME_KERNEL_IDS_H_
