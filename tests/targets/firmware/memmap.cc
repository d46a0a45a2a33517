// Memory map check, driven by the board's region table (from board.json):
//   RAM regions: a TF_ARENA buffer placed in the region is written and read back, and so is
//     the region's last word (restored afterwards);
//   code and ROM regions: a TF_CONST array placed there reads back what the ELF loader put.
// Each buffer's address is printed so the test can check it lies inside its region. Also
// prints where the default layout put code, weights, data and the stack.
#include <cstdint>

#include "tf_board.h"
#include "tf_print.h"

namespace {

constexpr uint32_t kConst[4] = {0x600DF00Du, 0x12345678u, 0xA5A55A5Au, 0xFFFFFFFFu};

#define DECLARE(name, base, size, rank, purpose) DECLARE_##purpose(name)
#define DECLARE_TF_REGION_RAM(name) TF_ARENA(name) volatile uint32_t g_buf_##name[16];
#define DECLARE_TF_REGION_CODE(name) \
  TF_CONST(name) const uint32_t g_buf_##name[4] = {kConst[0], kConst[1], kConst[2], kConst[3]};
#define DECLARE_TF_REGION_ROM(name) DECLARE_TF_REGION_CODE(name)
TF_BOARD_REGIONS(DECLARE)

TF_WEIGHTS const uint32_t g_weights[4] = {kConst[0], kConst[1], kConst[2], kConst[3]};
uint32_t g_data = 0x0DA7A000u;  // .data

int g_failures = 0;

bool CheckRam(volatile uint32_t* buf, const tf_region& r) {
  for (uint32_t i = 0; i < 16; ++i) buf[i] = 0x5A5A0000u ^ (i * 0x01010101u);
  for (uint32_t i = 0; i < 16; ++i)
    if (buf[i] != (0x5A5A0000u ^ (i * 0x01010101u))) return false;
  volatile uint32_t* last = reinterpret_cast<volatile uint32_t*>(r.base + r.size - 4);
  const uint32_t saved = *last;
  *last = 0xC0FFEE00u ^ r.base;
  const bool ok = *last == (0xC0FFEE00u ^ r.base);
  *last = saved;
  return ok;
}

bool CheckConst(const volatile uint32_t* buf) {
  for (int i = 0; i < 4; ++i)
    if (buf[i] != kConst[i]) return false;
  return true;
}

void Report(const tf_region& r, const volatile void* buf, bool ok) {
  static const char* const kPurpose[] = {"code", "ram", "rom"};
  tf_printf("region %s %s base=0x%08lx size=%lu buf=0x%08lx %s\n", r.name, kPurpose[r.purpose],
            static_cast<unsigned long>(r.base), static_cast<unsigned long>(r.size),
            static_cast<unsigned long>(reinterpret_cast<uintptr_t>(buf)), ok ? "ok" : "FAIL");
  if (!ok) ++g_failures;
}

}  // namespace

extern "C" uint32_t __tf_stack_bottom[];

int main() {
  int index = 0;
#define CHECK(name, base, size, rank, purpose)        \
  {                                                    \
    const tf_region& region = tf_board_regions[index++]; \
    CHECK_##purpose(name, region)                      \
  }
#define CHECK_TF_REGION_RAM(name, r) Report(r, g_buf_##name, CheckRam(g_buf_##name, r));
#define CHECK_TF_REGION_CODE(name, r) Report(r, g_buf_##name, CheckConst(g_buf_##name));
#define CHECK_TF_REGION_ROM(name, r) CHECK_TF_REGION_CODE(name, r)
  TF_BOARD_REGIONS(CHECK)
  tf_printf("layout code=0x%08lx weights=0x%08lx data=0x%08lx stack=0x%08lx\n",
            static_cast<unsigned long>(reinterpret_cast<uintptr_t>(&main)),
            static_cast<unsigned long>(reinterpret_cast<uintptr_t>(g_weights)),
            static_cast<unsigned long>(reinterpret_cast<uintptr_t>(&g_data)),
            static_cast<unsigned long>(reinterpret_cast<uintptr_t>(__tf_stack_bottom)));
  if (!CheckConst(g_weights) || g_data != 0x0DA7A000u) ++g_failures;
  tf_printf("memmap: %d regions, %d failures\n", index, g_failures);
  return g_failures == 0 ? 0 : 1;
}
