// Deliberate faults; argv[1] picks one. Each must end in a "tf-fault:" line and exit status
// TF_EXIT_FAULT, never a hang:
//   bus    load from an unmapped address         BusFault (PRECISERR)
//   undef  permanently undefined instruction     UsageFault (UNDEFINSTR)
//   div0   integer division by zero              UsageFault (DIVBYZERO; CCR.DIV_0_TRP set)
//   stack  unbounded recursion                   UsageFault STKOF on Armv8-M (PSPLIM),
//                                                a fault on stacking below the RAM region
//                                                on Armv7-M
//   hang   spins forever (the runner's timeout must stop it)
#include <cstring>

#include "tf_perf.h"
#include "tf_print.h"

namespace {

volatile int g_zero = 0;

// Recurses until the stack runs out; g_zero keeps the compiler from proving it.
__attribute__((noinline)) int Deep(int n) {
  volatile char buf[256];
  buf[0] = static_cast<char>(n);
  return n < 0 && g_zero ? 0 : Deep(n + 1) + buf[0];
}

}  // namespace

int main(int argc, char** argv) {
  const char* kind = argc > 1 ? argv[1] : "bus";
  tf_printf("fault: %s (stack size %u)\n", kind, static_cast<unsigned>(tf_stack_size()));
  if (std::strcmp(kind, "bus") == 0) return *reinterpret_cast<volatile int*>(0xF0000000u);
  if (std::strcmp(kind, "undef") == 0) __asm__ volatile("udf #0");
  if (std::strcmp(kind, "div0") == 0) return 100 / g_zero;
  if (std::strcmp(kind, "stack") == 0) return Deep(0);
  if (std::strcmp(kind, "hang") == 0) {
    for (;;) __asm__ volatile("" ::: "memory");
  }
  tf_printf("fault: unknown kind\n");
  return 2;
}
