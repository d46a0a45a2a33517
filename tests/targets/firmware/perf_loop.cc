// Regions of known instruction count for the QEMU plugin. Loop(n) is
//   movw r0, #n ; 1: subs r0, r0, #1 ; bne 1b        1 + 2n instructions
// and sits alone between its markers, so each region's count is known exactly:
//   region 0  Loop(1000)                         2001
//   region 1  Loop(2000)                         4001
//   region 2  Loop(500), 3 calls                 3 x 1001
//   region 3  encloses region 4 (Loop(100))      201 + 2 (region 4's markers)
//   region 5  a C int8 dot product               deterministic, not known in advance
//   region 7  END without BEGIN                  reported as an error
//   region 6  BEGIN, never ended                 reported as open at exit
#include <cstdint>

#include "tf_perf.h"
#include "tf_print.h"

#define LOOP(n) \
  __asm__ volatile("movw r0, %0\n1:\n\tsubs r0, r0, #1\n\tbne 1b" ::"i"(n) : "r0", "cc")

namespace {

int8_t g_a[256], g_b[256];

__attribute__((noinline)) int32_t Dot(const int8_t* a, const int8_t* b, int n) {
  int32_t acc = 0;
  for (int i = 0; i < n; ++i) acc += static_cast<int32_t>(a[i]) * b[i];
  return acc;
}

}  // namespace

int main() {
  uint32_t x = 12345;
  for (int i = 0; i < 256; ++i) {
    x = x * 1664525u + 1013904223u;
    g_a[i] = static_cast<int8_t>(x >> 24);
    g_b[i] = static_cast<int8_t>(x >> 16);
  }

  TF_PERF_BEGIN(0);
  LOOP(1000);
  TF_PERF_END(0);

  TF_PERF_BEGIN(1);
  LOOP(2000);
  TF_PERF_END(1);

  for (int i = 0; i < 3; ++i) {
    TF_PERF_BEGIN(2);
    LOOP(500);
    TF_PERF_END(2);
  }

  TF_PERF_BEGIN(3);
  TF_PERF_BEGIN(4);
  LOOP(100);
  TF_PERF_END(4);
  TF_PERF_END(3);

  TF_PERF_BEGIN(5);
  const int32_t dot = Dot(g_a, g_b, 256);
  TF_PERF_END(5);

  TF_PERF_END(7);
  tf_printf("perf_loop: dot=%ld\n", static_cast<long>(dot));
  TF_PERF_BEGIN(6);
  return 0;
}
