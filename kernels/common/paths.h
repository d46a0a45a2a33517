// Fast paths linked on demand (docs/decisions.md 45).
//
// A kernel variant whose code has several large paths (a requantization mode, a K loop, a
// kernel-size specialisation) keeps each path in its own source file, one extern "C"
// symbol, and its dispatcher calls the path through a weak declaration (TF_PATH_WEAK). A
// static link pulls an archive member in only for a strong reference, so a path is in the
// firmware only when something names it:
//   - the generated model.cc: the compiler lists the paths its ops take
//     (TF_KERNEL_PATH_LINK lines, tinyforge/kernel_table.h), from the TF_KERNEL_PATH lines of
//     the family's .inc, each a predicate on the op's parameter struct `p`:
//         TF_KERNEL_PATH(op, variant symbol, path symbol, isa, predicate)
//     evaluated for the whole-tensor and the row-by-row parameters; a predicate may also
//     read `optimize_size` (`compile --optimize size`: the smallest paths that run the
//     call, e.g. conv's 2 x 2-block drivers; docs/decisions.md 59);
//   - tables of everything (the variant tests): every path of every compiled variant.
// A path that is not linked reads as a null address; the dispatcher then takes a slower
// path of the same variant or the family's __ref: always the same result (every path is
// bit-exact with __ref), never a crash. Checking costs a GOT load and a branch per call.
#ifndef TINYFORGE_KERNELS_COMMON_PATHS_H_
#define TINYFORGE_KERNELS_COMMON_PATHS_H_

#include "kernels/common/isa.h"

#define TF_PATH_WEAK __attribute__((weak))

// TF_KERNEL_PATH_LINK(isa, path symbol), at file scope: a strong reference to a path of a
// variant of instruction-set class `isa` (ref, scalar, dsp, mve), so the linker pulls it in
// (the variable itself is garbage-collected). A build without that instruction set (a host)
// names nothing: it runs those variants as __ref. The generated model.cc has one line per
// path its ops take; tables of every variant have one per path.
#define TF_KERNEL_PATH_LINK(isa, symbol) TF_KERNEL_PATH_LINK_##isa(symbol)
#define TF_KERNEL_PATH_LINK_ON(symbol)        \
  extern "C" void symbol();                   \
  [[gnu::used]] static void (*const tf_path_##symbol)() = &symbol;
#define TF_KERNEL_PATH_LINK_ref(symbol) TF_KERNEL_PATH_LINK_ON(symbol)
#define TF_KERNEL_PATH_LINK_scalar(symbol) TF_KERNEL_PATH_LINK_ON(symbol)
#if TF_HAVE_DSP
#define TF_KERNEL_PATH_LINK_dsp(symbol) TF_KERNEL_PATH_LINK_ON(symbol)
#else
#define TF_KERNEL_PATH_LINK_dsp(symbol)
#endif
#if TF_HAVE_MVE
#define TF_KERNEL_PATH_LINK_mve(symbol) TF_KERNEL_PATH_LINK_ON(symbol)
#else
#define TF_KERNEL_PATH_LINK_mve(symbol)
#endif

#endif  // TINYFORGE_KERNELS_COMMON_PATHS_H_
