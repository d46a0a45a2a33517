// Board bring-up after the reset handler (startup.S): fault configuration, the Armv7-M
// stack guard, C/C++ constructors, command-line arguments from the host, main, exit.
#include <stdint.h>
#include <stdlib.h>

#include "tf_board.h"
#include "tf_host.h"

#define TF_REG(addr) (*(volatile uint32_t*)(addr))
#define SCB_VTOR TF_REG(0xE000ED08u)
#define SCB_CCR TF_REG(0xE000ED14u)
#define SCB_SHCSR TF_REG(0xE000ED24u)

#define CCR_DIV_0_TRP (1u << 4)
#define SHCSR_MEMFAULTENA (1u << 16)
#define SHCSR_BUSFAULTENA (1u << 17)
#define SHCSR_USGFAULTENA (1u << 18)
#define SHCSR_SECUREFAULTENA (1u << 19)
#define MPU_TYPE TF_REG(0xE000ED90u)
#define MPU_CTRL TF_REG(0xE000ED94u)
#define MPU_RNR TF_REG(0xE000ED98u)
#define MPU_RBAR TF_REG(0xE000ED9Cu)
#define MPU_RASR TF_REG(0xE000EDA0u)

#define TF_REGION_ENTRY(name, base, size, rank, purpose) {#name, base, size, rank, purpose},
const tf_region tf_board_regions[] = {TF_BOARD_REGIONS(TF_REGION_ENTRY)};
const uint32_t tf_board_region_count = sizeof tf_board_regions / sizeof tf_board_regions[0];

// Read by targets/qemu/run.py (non-loaded section .tf_board_id, see tf_sections_end.ld) to
// refuse running this ELF on another board.
__attribute__((section(".tf_board_id"), used)) static const char kBoardId[] =
    "tinyforge-board=" TF_BOARD_NAME;

typedef void (*tf_vector)(void);
extern const tf_vector tf_vector_table[];  // vectors.c
extern void __libc_init_array(void);
extern int main(int argc, char** argv);

extern uint32_t __tf_stack_guard[];

// Armv7-M has no stack-limit register: make the 256 bytes below the thread stack (see
// tf_sections.ld) a no-access, execute-never PMSAv7 region, so that an overflow raises
// MemManage. PRIVDEFENA keeps the default map everywhere else; HFNMIENA stays 0.
static void tf_stack_guard_init(void) {
#if !defined(__ARM_ARCH_8M_MAIN__) && !defined(__ARM_ARCH_8_1M_MAIN__)
  if (((MPU_TYPE >> 8) & 0xFFu) == 0) return;  // no MPU
  MPU_RNR = 0;
  MPU_RBAR = (uint32_t)__tf_stack_guard;  // 256-byte aligned by the linker script
  MPU_RASR = (1u << 28) | (0u << 24) | (7u << 1) | 1u;  // XN, AP = no access, 2^(7+1) B, on
  MPU_CTRL = (1u << 2) | 1u;                             // PRIVDEFENA | ENABLE
#endif
}

// Separate faults instead of everything escalating to HardFault, so the report names the
// cause; integer division by zero traps rather than silently giving 0 (a kernel bug).
static void tf_board_init(void) {
  SCB_VTOR = (uint32_t)tf_vector_table;
  SCB_CCR |= CCR_DIV_0_TRP;
  uint32_t shcsr = SHCSR_MEMFAULTENA | SHCSR_BUSFAULTENA | SHCSR_USGFAULTENA;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
  shcsr |= SHCSR_SECUREFAULTENA;
#endif
  SCB_SHCSR |= shcsr;
  tf_stack_guard_init();
  __asm__ volatile("dsb\n\tisb" ::: "memory");
}

// argv from the emulator's command line, split at spaces (arguments cannot contain any).
#define TF_MAX_ARGS 16
static char g_cmdline[512];
static char* g_argv[TF_MAX_ARGS + 1];

static int split_cmdline(void) {
  if (tf_host_cmdline(g_cmdline, sizeof g_cmdline) < 0) return 0;
  int argc = 0;
  char* p = g_cmdline;
  while (*p && argc < TF_MAX_ARGS) {
    while (*p == ' ') *p++ = '\0';
    if (!*p) break;
    g_argv[argc++] = p;
    while (*p && *p != ' ') ++p;
  }
  g_argv[argc] = 0;
  return argc;
}

__attribute__((noreturn, used)) void tf_start(void) {
  tf_board_init();
  __libc_init_array();
  const int argc = split_cmdline();
  tf_host_exit(main(argc, g_argv));  // not exit(): no atexit handlers, no stdio to flush
}
