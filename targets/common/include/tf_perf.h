// Measurement hooks for firmware run under QEMU: region markers for the instruction-count
// plugin (targets/qemu/tf_insncount.c) and the thread-stack high-water mark.
#ifndef TINYFORGE_TF_PERF_H_
#define TINYFORGE_TF_PERF_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Region markers: TF_PERF_BEGIN(id) ... TF_PERF_END(id), id a constant expression in
// [0, TF_PERF_MAX_REGIONS) (a literal, an enum value, a constexpr; checked by the assembler).
//
// Each marker is one 32-bit T32 instruction from the reserved hint space, HINT #(0x80 + id)
// and HINT #(0xA0 + id) (encoding 0xF3AF 0x80xx). Armv7-M, Armv8-M and QEMU execute it as a
// NOP, so instrumented firmware runs unchanged on hardware at a cost of one instruction per
// marker. The plugin recognises the encoding when QEMU translates it and reports, per id,
// the calls and the instructions executed strictly between BEGIN and END (markers excluded),
// summed over calls. Different ids may nest or overlap; an open id must not be begun again
// (recursion): the plugin reports that as an error.
//
// The "memory" clobber keeps loads and stores on their side of a marker; pure register
// arithmetic may still move across, so bracket whole calls (an op, a kernel, an inference).
#define TF_PERF_MAX_REGIONS 32
#define TF_PERF_BEGIN(id) TF_PERF_MARKER_(0x80, id)
#define TF_PERF_END(id) TF_PERF_MARKER_(0xA0, id)

#define TF_PERF_MARKER_(base, id)                                                  \
  __asm__ volatile(                                                                \
      ".if (%c0) < 0 || (%c0) > 31\n\t.error \"TF_PERF id must be in [0, 31]\"\n\t" \
      ".endif\n\t.inst.w 0xF3AF8000 + " #base " + %c0" ::"i"(id)                   \
      : "memory")

// Thread-stack usage. The stack is painted at reset; the high-water mark is the deepest
// byte ever written, measured from the stack top, so it includes the frames live when it
// is measured. Sizes in bytes.
uint32_t tf_stack_size(void);
uint32_t tf_stack_high_water(void);
// Repaints the currently unused part of the stack, so that the next tf_stack_high_water()
// reports the peak reached after this call (e.g. around one model invocation).
void tf_stack_rearm(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TINYFORGE_TF_PERF_H_
