// Thread-stack high-water mark. startup.S paints [__tf_stack_bottom, __tf_stack_top) with
// kPaint before any code runs; usage grows down from the top, so the first word from the
// bottom that no longer holds kPaint marks the deepest point ever reached (a frame that
// happens to store kPaint at its deepest word reads a few bytes short).
#include <stdint.h>

#include "tf_perf.h"

static const uint32_t kPaint = 0xA5A5A5A5u;  // must match TF_STACK_PAINT in startup.S

extern uint32_t __tf_stack_bottom[], __tf_stack_top[];

uint32_t tf_stack_size(void) {
  return (uint32_t)((uintptr_t)__tf_stack_top - (uintptr_t)__tf_stack_bottom);
}

uint32_t tf_stack_high_water(void) {
  const uint32_t* p = __tf_stack_bottom;
  while (p < __tf_stack_top && *p == kPaint) ++p;
  return (uint32_t)((uintptr_t)__tf_stack_top - (uintptr_t)p);
}

// tf_stack_rearm() is in startup.S: it must not have a stack frame of its own.
