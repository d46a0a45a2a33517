// Board smoke test: C++17 start-up (a dynamically initialised static), tf_printf over
// semihosting, command-line arguments, the ISA feature macros of the board's class, and the
// stack high-water mark.
#include <array>
#include <numeric>

#include "tf_board.h"
#include "tf_perf.h"
#include "tf_print.h"

namespace {

volatile int g_seed = 617;

struct Constructed {
  Constructed() : value(g_seed * 2) {}  // not constant: needs .init_array to run
  int value;
};
Constructed g_constructed;

template <typename T, std::size_t N>
constexpr T Sum(const std::array<T, N>& a) {
  T s{};
  for (T v : a) s += v;
  return s;
}
static_assert(Sum(std::array<int, 4>{1, 2, 3, 4}) == 10, "constexpr evaluation");

// Each level keeps a 64-byte buffer live across the call, so depth n uses > 64 n bytes.
__attribute__((noinline)) int Recurse(int n) {
  volatile char pad[64];
  pad[0] = static_cast<char>(n);
  return n == 0 ? pad[0] : Recurse(n - 1) + pad[0];
}

}  // namespace

int main(int argc, char** argv) {
  std::array<int, 8> a{};
  std::iota(a.begin(), a.end(), 1);
  tf_printf("hello from %s (%s, %s, class %s): ctor=%d sum=%d\n", TF_BOARD_NAME,
            TF_BOARD_QEMU_MACHINE, TF_BOARD_CPU, TF_BOARD_ISA_CLASS, g_constructed.value,
            Sum(a));
  tf_printf("args:");
  for (int i = 0; i < argc; ++i) tf_printf(" %s", argv[i]);
  tf_printf("\n");

#if defined(__ARM_FEATURE_DSP)
  const int dsp = 1;
#else
  const int dsp = 0;
#endif
#if defined(__ARM_FEATURE_MVE)
  const int mve = 1;
#else
  const int mve = 0;
#endif
#if defined(__ARM_FP)
  const int fpu = 1;
#else
  const int fpu = 0;
#endif
  tf_printf("isa: arch=%d dsp=%d mve=%d fpu=%d\n", __ARM_ARCH, dsp, mve, fpu);

  const unsigned before = tf_stack_high_water();
  volatile int r = Recurse(32);
  const unsigned deep = tf_stack_high_water();
  tf_stack_rearm();
  const unsigned rearmed = tf_stack_high_water();
  r = r + Recurse(2);
  const unsigned shallow = tf_stack_high_water();
  tf_printf("stack: size=%u before=%u deep=%u rearmed=%u shallow=%u (r=%d)\n",
            static_cast<unsigned>(tf_stack_size()), before, deep, rearmed, shallow,
            static_cast<int>(r));
  return 0;
}
